// The live catalog and policy: definitions from Karta objects over the built-in ones and under --definitions
// directories, ready only once the cluster's Kartas are listed, and what a load reports.
#include "policy/state_store.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "mapper/catalog/definition_loader.h"
#include "tests/support/test_support.h"

namespace wm::policy {

namespace {

std::string dir_with(const std::string& name, const std::string& text) {
  static int n = 0;
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("wm-state-store-test-" + std::to_string(getpid()) + "-" + std::to_string(++n));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + name) << text;
  return dir;
}

}  // namespace

TEST_CASE("definitions from Karta objects: ready only once listed, over the built-in ones and under --definitions") {
  const std::string jobset = test::read_file(test::source_path("definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml"));
  auto karta_definition = [&] {
    catalog::DefinitionLoad load = catalog::load_definitions(jobset, "Karta jobset");
    REQUIRE(load.errors.empty());
    return std::make_shared<const catalog::Definition>(std::move(load.definitions.front()));
  };
  auto file_of_jobset = [](const StateStore& state) {
    return state.current().catalog->find("jobset.x-k8s.io/v1alpha2", "JobSet").definition->file;
  };
  {
    StateStore state({});
    REQUIRE(state.load().empty());
    state.expect_cluster_definitions();
    CHECK_FALSE(state.ready());  // the first list of Kartas is not in yet
    state.set_cluster_definitions({});
    CHECK(state.ready());
    CHECK(file_of_jobset(state) == "definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml");  // built in
    state.set_cluster_definitions({karta_definition()});
    CHECK(file_of_jobset(state) == "Karta jobset");
    state.set_cluster_definitions({});  // the Karta deleted: the built-in one again
    CHECK(file_of_jobset(state) == "definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml");
  }
  const std::string dir = dir_with("jobset.yaml", jobset);
  StateStore state({"", {dir}});
  REQUIRE(state.load().empty());
  state.set_cluster_definitions({karta_definition()});
  CHECK(file_of_jobset(state) == dir + "/jobset.yaml");  // --definitions wins
}

TEST_CASE("a policy file that is broken or missing is reported at its file and line, and nothing is loaded") {
  StateStore missing({"/nonexistent/policy.yaml", {}});
  const yaml::Diagnostics none = missing.load();
  REQUIRE(none.size() == 1);
  CHECK(none[0].str() == "/nonexistent/policy.yaml: cannot open the policy file");
  CHECK_FALSE(missing.ready());
  const std::string dir = dir_with("policy.yaml", "profiles:\n  kai: {unknownField: 1}\nrules: []\n");
  StateStore broken({dir + "/policy.yaml", {}});
  const yaml::Diagnostics problems = broken.load();
  REQUIRE_FALSE(problems.empty());
  CHECK(problems[0].file == dir + "/policy.yaml");
  CHECK(problems[0].line == 1);
  CHECK(problems[0].field == "profiles");  // not a Policy object: apiVersion, kind and spec are missing
}

}  // namespace wm::policy
