// Upstream Workload Map records, in its e2e tests, each state a real operator put a workload through and the phases
// its Go library computed (test/e2e/recorded_data, copied to fixtures/upstream-recorded/ with their source). Under
// the same upstream definition (../shared/karta-upstream/<kartaName>.yaml), workload-map must give the same phases;
// and the built-in catalog's own status mappings must give them too, so that they never drift from upstream's.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "base/json/json_writer.h"
#include "mapper/catalog/definition_loader.h"
#include "mapper/catalog/documents.h"
#include "mapper/view/status.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string field(simdjson::dom::element element, const char* key) {
  std::string_view text;
  return element[key].get_string().get(text) == simdjson::SUCCESS ? std::string(text) : std::string();
}

// The definition to read a recording with, or null to skip it; `kartaName` and the first state's object say which.
using DefinitionFor =
    std::function<const catalog::Definition*(const std::string& karta, simdjson::dom::element object)>;

// Phases given on purpose where upstream's differ, by "file@resourceVersion", each with its reason where it is listed.
using Deliberate = std::map<std::string, std::set<std::string>>;

// Checks every STATE of every recording that `definition_for` gives a definition; returns how many states it checked.
int check_recordings(const DefinitionFor& definition_for, const Deliberate& deliberate = {}) {
  const std::string dir = test::source_path("tests/fixtures/upstream-recorded");
  int states = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    INFO(path.filename().string());
    yaml::Diagnostics errors;
    auto documents = catalog::read_document_file(path.string(), errors);
    REQUIRE(errors.empty());
    REQUIRE(documents.size() == 1);
    auto recording = test::parse_json(documents[0].json);
    simdjson::dom::array events;
    REQUIRE(recording.root["events"].get_array().get(events) == simdjson::SUCCESS);
    const catalog::Definition* definition = nullptr;
    for (auto event : events)
      if (field(event, "kind") == "STATE") {
        definition = definition_for(field(recording.root, "kartaName"), event["object"].value());
        break;
      }
    if (!definition) continue;
    REQUIRE(definition->root().status);
    for (auto event : events) {
      if (field(event, "kind") != "STATE") continue;
      auto object = test::parse_json(json::element_json(event["object"].value()));
      std::set<std::string> want, got;
      simdjson::dom::array phases;  // named: a range-for over a temporary result's value() would dangle
      REQUIRE(event["phases"].get_array().get(phases) == simdjson::SUCCESS);
      for (auto phase : phases) want.insert(lower(std::string(phase.get_string().value())));
      if (auto ours = deliberate.find(path.filename().string() + "@" + field(event, "resourceVersion"));
          ours != deliberate.end())
        want = ours->second;
      std::vector<std::string> warnings;
      for (const auto& phase : view::evaluate_status(*definition->root().status, *object.doc, warnings))
        got.insert(lower(phase));
      INFO("resourceVersion " << field(event, "resourceVersion"));
      CHECK(warnings.empty());
      CHECK(got == want);
      ++states;
    }
  }
  return states;
}

}  // namespace

TEST_CASE("upstream's recorded workload states get the phases upstream's library gave them") {
  const std::string definitions = test::corpus_dir() + "/../../karta-upstream";
  std::vector<std::unique_ptr<catalog::Definition>> loaded_definitions;
  const int states =
      check_recordings([&](const std::string& karta, simdjson::dom::element) -> const catalog::Definition* {
        const std::string karta_file = definitions + "/" + karta + ".yaml";
        if (!std::filesystem::exists(karta_file)) return nullptr;  // not every upstream definition is in ../shared
        auto loaded = catalog::load_definitions(test::read_file(karta_file), karta_file);
        REQUIRE(loaded.errors.empty());
        REQUIRE(loaded.definitions.size() == 1);
        loaded_definitions.push_back(std::make_unique<catalog::Definition>(std::move(loaded.definitions[0])));
        return loaded_definitions.back().get();
      });
  CHECK(states >= 20);
}

TEST_CASE("the built-in catalog's status mappings give upstream's recorded phases") {
  const catalog::Catalog& catalog = test::builtin_catalog();
  std::set<std::string> kinds;
  // KubeRay sets a RayJob's jobDeploymentStatus to Suspending while it deletes the job's cluster
  // (ray-operator/controllers/ray/rayjob_controller.go, JobDeploymentStatusSuspending), a phase the Karta schema
  // has a name for; upstream's definition maps nothing to it.
  const Deliberate better = {{"rayjob-v1-suspended.yaml@627950", {"suspending"}}};
  const int states = check_recordings(
      [&](const std::string&, simdjson::dom::element object) -> const catalog::Definition* {
        const auto match = catalog.find(field(object, "apiVersion"), field(object, "kind"));
        if (match.definition) kinds.insert(field(object, "kind"));
        return match.definition;
      },
      better);
  // JobSet, LeaderWorkerSet and RayCluster are here for the states their built-in mappings once missed: a JobSet both
  // initializing and running, a LeaderWorkerSet progressing before it has an Available condition, a RayCluster
  // suspended before its controller has written a status.
  CHECK(kinds ==
        std::set<std::string>{"JobSet", "LeaderWorkerSet", "Milvus", "RayCluster", "RayJob", "Sandbox", "Service"});
  CHECK(states >= 30);
}
