// Every upstream manifest: the view finds every pod template or pod spec, with the replica and pod
// counts of fixtures/corpus_expectations.yaml (checked by hand against the manifests).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "mapper/view/gangs.h"
#include "mapper/view/quantity.h"
#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

using namespace wm;

TEST_CASE("the corpus has every workload type the catalog promises") {
  auto files = test::corpus_files();
  REQUIRE(files.size() >= 50);
}

namespace {

// Each manifest under `dir` against `expectations_file`: its views' kinds, names, pods, GPUs, requests (where
// given), gangs and instances.
int check_manifests(const std::string& dir, const std::vector<std::string>& files,
                    const std::string& expectations_file) {
  YAML::Node expectations = YAML::LoadFile(test::source_path(expectations_file));
  // Objects that workloads refer to (a TrainJob's runtime) are found among all the manifests, as the cluster side
  // would find them among the cluster's objects.
  view::ReferenceStore references;
  std::vector<std::string> paths;
  for (const auto& file : files) paths.push_back(dir + "/" + file);
  test::hold_objects(references, paths);
  int workloads = 0;
  for (const auto& file : files) {
    DYNAMIC_SECTION(file) {
      YAML::Node expected = expectations[file];
      INFO("add " << file << " to " << expectations_file);
      REQUIRE(expected.IsSequence());
      size_t index = 0;
      for (auto& object : test::parse_file(dir + "/" + file)) {
        auto match = test::builtin_catalog().find(object.api_version, object.kind);
        if (!match.definition) continue;  // a ConfigMap or Service beside the workload
        REQUIRE(index < expected.size());
        YAML::Node want = expected[index++];
        view::WorkloadView view = view::build_view(*match.definition, *object.doc,
                                                   {.catalog = &test::builtin_catalog(), .references = &references});
        INFO(object.kind << " " << object.name);
        CHECK(view.gvk.kind == want["kind"].as<std::string>());
        CHECK(view.name == want["name"].as<std::string>());
        CHECK(view.total_pods == want["pods"].as<long long>());
        long long gpus = 0;
        if (auto it = view.total_requests.find("nvidia.com/gpu"); it != view.total_requests.end())
          gpus = it->second.units_ceil();
        CHECK(gpus == want["gpus"].as<long long>());
        for (const auto& kv : want["requests"]) {
          const std::string resource = kv.first.as<std::string>();
          auto it = view.total_requests.find(resource);
          INFO(resource);
          REQUIRE(it != view.total_requests.end());
          CHECK(it->second.str() == view::Quantity::parse(kv.second.as<std::string>())->str());
        }
        // Gangs under the minimum rule: all pods in one gang unless noted; `gang` one minimum for every gang, or a
        // list of each gang's.
        long long gangs = want["gangs"] ? want["gangs"].as<long long>() : 1;
        auto expanded = view::expanded_gangs(view.gangs, 1000);
        REQUIRE(expanded.size() == static_cast<size_t>(gangs));
        for (size_t g = 0; g < expanded.size(); ++g) {
          const YAML::Node gang = want["gang"] && want["gang"].IsSequence() ? want["gang"][g] : want["gang"];
          CHECK(expanded[g].min_member == (gang ? gang.as<long long>() : want["pods"].as<long long>()));
        }

        std::map<std::string, long long> got, wanted;
        for (const auto& c : view.components)
          for (const auto& i : c.instances)
            if (i.shape != view::PodShape::Logical) {
              got[c.name + "/" + i.id] = i.pods;
              // Located, but for a kind whose API has no pod fields at all (NIMCache: cpu and memory only).
              if (i.fields.scheduler_name || i.fields.labels) CHECK_FALSE(i.location.empty());
            }
        for (const auto& kv : want["instances"]) wanted[kv.first.as<std::string>()] = kv.second.as<long long>();
        CHECK(got == wanted);
        // At least one pod template per workload, but for the scaffold whose spec is empty.
        if (file != "jobset/batch_v1alpha2_jobset.yaml") {
          CHECK(view.pod_template_count() >= 1);
          CHECK(view.problems.empty());
        }
        ++workloads;
      }
      CHECK(index == expected.size());
    }
  }
  return workloads;
}

}  // namespace

TEST_CASE("every corpus workload maps to the expected components, replicas and pods") {
  check_manifests(test::corpus_dir(), test::corpus_files(), "tests/fixtures/corpus_expectations.yaml");
}

// More real upstream manifests, each with its source on its first line, for the cases the shared corpus lacks.
TEST_CASE("every upstream fixture maps to the counts its upstream documentation gives") {
  const std::string dir = test::source_path("tests/fixtures/upstream");
  check_manifests(dir, test::yaml_files_under(dir), "tests/fixtures/upstream_expectations.yaml");
}

TEST_CASE("a JobSet with a leader Job and two worker Jobs of 4 GPUs each needs 12 GPUs across 3 pods") {
  auto objects = test::parse_yaml(R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: team-a}
spec:
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        template:
          spec:
            containers:
            - name: trainer
              image: trainer:1
              resources: {limits: {nvidia.com/gpu: 4}, requests: {cpu: "8", memory: 64Gi}}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 1
        template:
          spec:
            containers:
            - name: trainer
              image: trainer:1
              resources: {limits: {nvidia.com/gpu: 4}, requests: {cpu: "8", memory: 64Gi}}
)");
  auto& object = objects.at(0);
  auto match = test::builtin_catalog().find(object.api_version, object.kind);
  REQUIRE(match.definition);
  view::WorkloadView view = view::build_view(*match.definition, *object.doc, {.catalog = &test::builtin_catalog()});
  CHECK(view.total_pods == 3);
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 12);
  CHECK(view.total_requests.at("cpu").str() == "24");
  CHECK(view.total_requests.at("memory").str(true) == "192Gi");
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].min_member == 3);
  const auto& jobs = view.components.at(1).instances;
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "leader");
  CHECK(jobs[0].location == "/spec/replicatedJobs/0/template/spec/template");
  CHECK(jobs[1].pods == 2);
  CHECK(jobs[1].pod_requests.at("nvidia.com/gpu").units_ceil() == 4);
}

TEST_CASE("status maps to phases") {
  auto objects = test::parse_yaml(R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: done}
spec: {replicatedJobs: []}
status:
  conditions:
  - {type: Completed, status: "True"}
)");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc, {.status = true});
  CHECK(view.phases == std::vector<std::string>{"completed"});

  auto pending = test::parse_yaml("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n");
  auto pod = test::builtin_catalog().find("v1", "Pod");
  CHECK(view::build_view(*pod.definition, *pending[0].doc, {.status = true}).phases ==
        std::vector<std::string>{"Undefined"});
}
