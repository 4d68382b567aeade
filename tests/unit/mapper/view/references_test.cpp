// A definition whose pods come from another object (Definition::references, the TrainJob's runtime): the referenced
// object is found in a ReferenceStore, never on the API server; the TrainJob definition's counts follow the trainer
// controller's rules (kubeflow/trainer plugins jobset, plainml, torch and mpi); a missing or unreadable reference
// makes the workload not understood, with a problem that names it.
#include <catch2/catch.hpp>

#include "mapper/catalog/definition_loader.h"
#include "mapper/view/gangs.h"
#include "mapper/view/pod_edits.h"
#include "mapper/view/workload_view.h"
#include "tests/support/result_matchers.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

const std::string kTorchRuntime = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
  "metadata":{"name":"torch-distributed"},
  "spec":{"mlPolicy":{"numNodes":1,"torch":{}},"template":{"spec":{"replicatedJobs":[
    {"name":"node","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
     "spec":{"template":{"spec":{"containers":[{"name":"node","image":"torch",
       "resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}}]}}}})";

// The deepspeed-distributed runtime's shape (manifests/base/runtimes): an MPI policy with runLauncherAsNode, a
// "node" job and a launcher job that carries the trainer label.
const std::string kMpiRuntime = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",
  "metadata":{"name":"mpi","namespace":"team-a"},
  "spec":{"mlPolicy":{"numNodes":1,"mpi":{"runLauncherAsNode":true}},"template":{"spec":{"replicatedJobs":[
    {"name":"node","template":{"spec":{"template":{"spec":{"containers":[{"name":"node","image":"mpi"}]}}}}},
    {"name":"launcher","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
     "spec":{"template":{"spec":{"containers":[{"name":"node","image":"mpi"}]}}}}}]}}}})";

struct Fixture : test::ReferencedViews {
  Fixture() {
    REQUIRE(store.put(kTorchRuntime));
    REQUIRE(store.put(kMpiRuntime));
  }
};

std::string train_job(const std::string& runtime_ref, const std::string& trainer) {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj}\nspec:\n  runtimeRef: " +
         runtime_ref + "\n  trainer: " + trainer + "\n";
}

}  // namespace

TEST_CASE("the store finds objects by group, kind, namespace and name, and a relist replaces a kind") {
  view::ReferenceStore store;
  REQUIRE(store.put(kTorchRuntime));
  CHECK(store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "", "torch-distributed"));
  CHECK_FALSE(store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "team-a", "torch-distributed"));
  CHECK_FALSE(store.find("trainer.kubeflow.org", "TrainingRuntime", "", "torch-distributed"));
  auto unnamed = store.put(R"({"kind":"TrainingRuntime","metadata":{"name":"x"}})");
  CHECK_THAT(unnamed, test::FailsWith(ErrorCode::Invalid, "apiVersion"));
  CHECK_THAT(store.put("{").error(), Catch::StartsWith("not JSON"));
  REQUIRE(store.put(kMpiRuntime));
  store.replace_kind("trainer.kubeflow.org", "ClusterTrainingRuntime", {});
  CHECK(store.size() == 1);
  CHECK(store.find("trainer.kubeflow.org", "TrainingRuntime", "team-a", "mpi"));
  store.remove("trainer.kubeflow.org", "TrainingRuntime", "team-a", "mpi");
  CHECK(store.size() == 0);
}

TEST_CASE("a TrainJob is read through its ClusterTrainingRuntime: numNodes pods, GPUs from the runtime's container") {
  Fixture f;
  view::WorkloadView view = f.view(train_job("{name: torch-distributed}", "{numNodes: 4}"));
  REQUIRE(view.problems.empty());
  CHECK(view.total_pods == 4);
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 4);
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].min_member == 4);
  // Without numNodes, the runtime's mlPolicy.numNodes (plainml/torch keep the runtime's count).
  CHECK(f.view(train_job("{name: torch-distributed}", "{}")).total_pods == 1);
}

TEST_CASE("resourcesPerNode replaces the node container's resources, as the trainer's JobSet builder does") {
  Fixture f;
  view::WorkloadView view =
      f.view(train_job("{name: torch-distributed}", "{numNodes: 2, resourcesPerNode: {limits: {nvidia.com/gpu: 8}}}"));
  REQUIRE(view.problems.empty());
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 16);
  // Neither limits nor requests: the runtime's resources stay (builder.go checks both).
  view = f.view(train_job("{name: torch-distributed}", "{numNodes: 2, resourcesPerNode: {}}"));
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 2);
}

// Ported from kubeflow/trainer plugins/mpi mpi_test.go (EnforceMLPolicy): with runLauncherAsNode the node job gets
// numNodes - 1 pods (at least 1) and the launcher keeps the runtime's count.
TEST_CASE("an MPI runtime with runLauncherAsNode gives the node job numNodes - 1 pods, and the launcher one") {
  Fixture f;
  const std::string ref = "{kind: TrainingRuntime, name: mpi}";
  view::WorkloadView view = f.view(train_job(ref, "{numNodes: 3}"), "team-a");
  REQUIRE(view.problems.empty());
  CHECK(view.total_pods == 3);
  REQUIRE(view.components.at(1).instances.size() == 2);
  CHECK(view.components[1].instances[0].id == "node");
  CHECK(view.components[1].instances[0].pods == 2);
  CHECK(view.components[1].instances[1].id == "launcher");
  CHECK(view.components[1].instances[1].pods == 1);
  CHECK(f.view(train_job(ref, "{numNodes: 1}"), "team-a").total_pods == 2);  // max(1 - 1, 1) nodes
}

TEST_CASE("a namespaced runtime is looked up in the TrainJob's namespace only") {
  Fixture f;
  view::WorkloadView view = f.view(train_job("{kind: TrainingRuntime, name: mpi}", "{numNodes: 3}"), "team-b");
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0].find("TrainingRuntime team-b/mpi") != std::string::npos);
  CHECK(view.total_pods == 0);
}

TEST_CASE("a missing or unreadable reference makes the TrainJob not understood, naming what is missing") {
  Fixture f;
  view::WorkloadView view = f.view(train_job("{name: absent}", "{numNodes: 2}"));
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0].find("ClusterTrainingRuntime absent") != std::string::npos);
  view = f.view(train_job("{kind: Runtime, name: x}", "{}"));
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0].find("kind Runtime is none the definition reads") != std::string::npos);
  view = f.view(train_job("{name: [a]}", "{}"));
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0].find("must yield one string") != std::string::npos);
  // No store at all (a caller that holds no referenced objects).
  auto objects = test::parse_yaml(train_job("{name: torch-distributed}", "{}"));
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  view = view::build_view(*match.definition, *objects[0].doc);
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0].find("--with") != std::string::npos);
}

TEST_CASE("pods from a referenced object are counted but not edited: their template is not in the TrainJob") {
  Fixture f;
  view::WorkloadView view = f.view(train_job("{name: torch-distributed}", "{numNodes: 2}"));
  REQUIRE(view.problems.empty());
  std::vector<std::string> warnings;
  const std::string patch =
      view::make_patch(view, *f.kept.back().doc, {.scheduler_name = "kai-scheduler"}, {}, warnings);
  CHECK(patch == "[]");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("referenced object") != std::string::npos);
}

TEST_CASE("the references annotation is checked when the definition loads") {
  const std::string head = R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: broken
  annotations:
)";
  const std::string body = R"(spec:
  structureDefinition:
    rootComponent:
      name: w
      kind: {group: example.com, version: v1, kind: W}
      statusDefinition: {phaseDefinition: {path: .status.phase}, statusMappings: {running: [{byPhase: Running}]}}
)";
  auto errors_of = [&](const std::string& annotations) {
    auto result = catalog::load_definitions(head + annotations + body, "broken.yaml");
    std::string all;
    for (const auto& e : result.errors) all += e.str() + "\n";
    return all;
  };
  CHECK(errors_of("    workload-map.io/references: |\n      r: {kinds: [], name: .a}\n").find("must list the kinds") !=
        std::string::npos);
  CHECK(errors_of("    workload-map.io/references: |\n      r: {kinds: [{version: v1, kind: K}], name: .a}\n")
            .find("workload-map.io/resolved-object: is required") != std::string::npos);
  CHECK(errors_of("    workload-map.io/resolved-object: .object\n").find("names none") != std::string::npos);
  CHECK(
      errors_of("    workload-map.io/references: |\n      r: {kinds: [{version: v1, kind: K}, {version: v1, kind: L}], "
                "name: .a}\n    workload-map.io/resolved-object: .object\n")
          .find("r.kind: is required") != std::string::npos);
  CHECK(errors_of("    workload-map.io/references: |\n      r: {kinds: [{version: v1, kind: K}], name: .a}\n"
                  "    workload-map.io/resolved-object: .object\n")
            .empty());
}

}  // namespace wm
