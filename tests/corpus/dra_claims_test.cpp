// Real DRA manifests (tests/fixtures/dra/: NVIDIA's k8s-dra-driver-gpu demos and tests, Kubernetes' website
// examples): each workload's pods, GPUs and devices not counted under the built-in policy's devices section, as
// tests/fixtures/dra_expectations.yaml gives them from the DRA semantics.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "mapper/view/workload_view.h"
#include "policy/policy.h"
#include "tests/support/test_support.h"

using namespace wm;

TEST_CASE("every DRA fixture counts the devices its claims ask for, as the DRA semantics say") {
  const std::string dir = test::source_path("tests/fixtures/dra");
  const auto files = test::yaml_files_under(dir);
  REQUIRE(files.size() >= 20);
  YAML::Node expectations = YAML::LoadFile(test::source_path("tests/fixtures/dra_expectations.yaml"));
  const policy::Policy builtin = policy::Policy::builtin();
  view::ReferenceStore held;  // every file's objects, as the cluster side holds the cluster's
  std::vector<std::string> paths;
  for (const auto& file : files) paths.push_back(dir + "/" + file);
  test::hold_objects(held, paths);
  for (const auto& file : files) {
    DYNAMIC_SECTION(file) {
      YAML::Node expected = expectations[file];
      INFO("add " << file << " to tests/fixtures/dra_expectations.yaml");
      REQUIRE(expected.IsSequence());
      size_t index = 0;
      for (auto& object : test::parse_file(dir + "/" + file)) {
        auto match = test::builtin_catalog().find(object.api_version, object.kind);
        if (!match.definition) continue;  // the claims, templates, classes and namespaces beside the workloads
        REQUIRE(index < expected.size());
        YAML::Node want = expected[index++];
        view::WorkloadView view =
            view::build_view(*match.definition, *object.doc,
                             {.catalog = &test::builtin_catalog(), .references = &held, .devices = &builtin.devices()});
        INFO(object.kind << " " << object.name);
        CHECK(view.gvk.kind == want["kind"].as<std::string>());
        CHECK(view.name == want["name"].as<std::string>());
        CHECK(view.total_pods == want["pods"].as<long long>());
        auto gpus = view.total_requests.find("nvidia.com/gpu");
        CHECK((gpus == view.total_requests.end() ? 0 : gpus->second.units_ceil()) == want["gpus"].as<long long>());
        for (const auto& kv : want["requests"]) {
          auto it = view.total_requests.find(kv.first.as<std::string>());
          INFO(kv.first.as<std::string>());
          REQUIRE(it != view.total_requests.end());
          CHECK(it->second.str() == kv.second.as<std::string>());
        }
        CHECK(view.uncounted_devices.size() == (want["uncounted"] ? want["uncounted"].as<size_t>() : 0));
        CHECK(view.problems.empty());
      }
      CHECK(index == expected.size());
    }
  }
}
