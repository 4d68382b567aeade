// Broken definitions are refused at load time with file, line and field. Each fixture in
// fixtures/broken-definitions states on its first line the message it must produce.
#include "mapper/catalog/definition_loader.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/test_support.h"

using namespace wm;

TEST_CASE("every broken definition is refused with file:line: field: message") {
  const std::string dir = test::source_path("tests/fixtures/broken-definitions");
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string first_line = text.str().substr(0, text.str().find('\n'));
    REQUIRE(first_line.rfind("# expect: ", 0) == 0);
    const std::string expected = entry.path().filename().string() + ":" + first_line.substr(10);
    catalog::DefinitionLoad load = catalog::load_definitions(text.str(), entry.path().filename().string());
    INFO("fixture " << entry.path().filename() << " expects " << expected);
    CHECK(load.definitions.empty());
    REQUIRE_FALSE(load.errors.empty());
    bool found = false;
    for (const auto& e : load.errors) {
      UNSCOPED_INFO("got " << e.str());
      found = found || e.str().rfind(expected, 0) == 0;
    }
    CHECK(found);
    ++checked;
  }
  CHECK(checked >= 12);
}

TEST_CASE("the built-in catalog loads cleanly and covers the mission's workload types") {
  const catalog::Catalog& catalog = test::builtin_catalog();
  for (auto [api, kind] :
       std::initializer_list<std::pair<const char*, const char*>>{{"jobset.x-k8s.io/v1alpha2", "JobSet"},
                                                                  {"kubeflow.org/v1", "PyTorchJob"},
                                                                  {"kubeflow.org/v2beta1", "MPIJob"},
                                                                  {"ray.io/v1", "RayCluster"},
                                                                  {"ray.io/v1", "RayJob"},
                                                                  {"ray.io/v1", "RayService"},
                                                                  {"serving.kserve.io/v1beta1", "InferenceService"},
                                                                  {"serving.knative.dev/v1", "Service"},
                                                                  {"apps.nvidia.com/v1alpha1", "NIMService"},
                                                                  {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"},
                                                                  {"milvus.io/v1beta1", "Milvus"},
                                                                  {"grove.io/v1alpha1", "PodCliqueSet"},
                                                                  {"nvidia.com/v1alpha1", "DynamoGraphDeployment"},
                                                                  {"v1", "Pod"},
                                                                  {"batch/v1", "Job"},
                                                                  {"batch/v1", "CronJob"},
                                                                  {"apps/v1", "Deployment"},
                                                                  {"apps/v1", "StatefulSet"},
                                                                  {"apps/v1", "ReplicaSet"},
                                                                  {"apps/v1", "DaemonSet"}}) {
    INFO(api << " " << kind);
    auto match = catalog.find(api, kind);
    CHECK(match.definition != nullptr);
    CHECK(match.uncovered_version_of.empty());
  }
  CHECK(catalog.find("v1", "ConfigMap").definition == nullptr);
  // KubeRay's v1alpha1 has v1's schema, and the definition says so; Milvus v1alpha1 has another schema.
  CHECK(catalog.find("ray.io/v1alpha1", "RayCluster").definition);
  CHECK(catalog.find("milvus.io/v1alpha1", "Milvus").definition == nullptr);
  CHECK(catalog.find("milvus.io/v1alpha1", "Milvus").uncovered_version_of == "v1beta1");
  CHECK(catalog.find("ray.io/v2", "RayCluster").uncovered_version_of == "v1, v1alpha1");
}

TEST_CASE("a directory's definitions override the embedded ones of the same kind") {
  yaml::Diagnostics errors;
  catalog::Catalog catalog = catalog::Catalog::embedded(errors);
  catalog::Catalog extra;
  catalog::DefinitionLoad load = catalog::load_definitions(R"(
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: my-jobs
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: batch, version: v1, kind: Job}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: .spec.completions // 1
      statusDefinition:
        statusMappings:
          running:
          - byExpression: {expression: ".status.active > 0", expectedResult: "true"}
)",
                                                           "custom/job.yaml");
  REQUIRE(load.errors.empty());
  extra.add(std::move(load.definitions[0]), errors);
  auto replaced = catalog.merge(std::move(extra));
  REQUIRE(replaced.size() == 1);
  CHECK(catalog.find("batch/v1", "Job").definition->name == "my-jobs");
  CHECK(errors.empty());
}

TEST_CASE("every served version of every catalog kind's upstream CRD is read by a definition, or known not to be") {
  // Versions whose schema differs and that no definition reads: objects of them are reported as not understood.
  const std::set<std::string> unread = {"milvus.io/v1alpha1 Milvus"};
  const std::string dir = test::corpus_dir() + "/../../crds";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    YAML::Node crd = YAML::LoadFile(entry.path().string());
    if (!crd["spec"] || !crd["spec"]["names"]) continue;
    const std::string group = crd["spec"]["group"].as<std::string>(),
                      kind = crd["spec"]["names"]["kind"].as<std::string>();
    if (!test::builtin_catalog().find(group + "/", kind).definition &&
        test::builtin_catalog().find(group + "/", kind).uncovered_version_of.empty())
      continue;  // a kind the catalog does not define (the schedulers' objects)
    for (const auto& version : crd["spec"]["versions"]) {
      if (!version["served"].as<bool>()) continue;
      const std::string api = group + "/" + version["name"].as<std::string>();
      INFO(entry.path().filename() << ": " << api << " " << kind);
      CHECK((test::builtin_catalog().find(api, kind).definition != nullptr) != (unread.count(api + " " + kind) == 1));
      ++checked;
    }
  }
  CHECK(checked >= 16);
}

// workload-map's annotations hold YAML text, whose own lines are not the file's: a misspelt key in one is reported at
// the annotation's line, and the message names the keys it may have.
TEST_CASE("an unknown key inside a workload-map.io annotation is reported at the annotation's line") {
  catalog::DefinitionLoad load = catalog::load_definitions(R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: typos
  annotations:
    workload-map.io/sub-groups: |
      minSubGroups: "1"
      minimum: {}
    workload-map.io/references: |
      runtime:
        kinds: [{group: trainer.kubeflow.org, version: v1alpha1, kind: TrainingRuntime}]
        name: .spec.runtimeRef.name
        namespace: .metadata.namespace
      other: 3
    workload-map.io/resolved-object: .
    workload-map.io/referenced-pod-edits: |
      list: /spec/a
      entry: {name: node}
      instanceList: /b
      instanceKey: name
      podMetadata: /c
      podMetdata: /d
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: batch, version: v1, kind: Job}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: .spec.completions // 1
      statusDefinition:
        statusMappings:
          running:
          - byExpression: {expression: ".status.active > 0", expectedResult: "true"}
)",
                                                           "typos.yaml");
  CHECK(load.definitions.empty());
  std::vector<std::string> errors;
  for (const auto& e : load.errors) errors.push_back(e.str());
  CHECK(errors == std::vector<std::string>{
                      "typos.yaml:6: metadata.annotations.workload-map.io/sub-groups.minimum: unknown field "
                      "(minSubGroups, minimums)",
                      "typos.yaml:9: metadata.annotations.workload-map.io/references.runtime.namespace: unknown field "
                      "(kinds, kind, name, optional)",
                      "typos.yaml:9: metadata.annotations.workload-map.io/references.other: must be a mapping (kinds, "
                      "kind, name, optional)",
                      "typos.yaml:16: metadata.annotations.workload-map.io/referenced-pod-edits.podMetdata: unknown "
                      "field (list, entry, instanceList, instanceKey, podMetadata)",
                  });
}
