// The reference watch without an API server: which kinds it follows (the catalog's references and the profiles'
// queues), and that what a list and a watch of a fake API server bring is what admission then reads.
#include "controllers/reference_watch.h"

#include <catch2/catch.hpp>
#include <thread>

#include "base/json/json_writer.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

std::unique_ptr<policy::StateStore> shipped_state() {
  return test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")),
                                 "reference-watch-policy.yaml");
}

std::string runtime_json(const std::string& file) {
  auto objects = test::parse_file(test::source_path("tests/fixtures/upstream/trainjob/runtimes/" + file));
  REQUIRE(!objects.empty());
  return json::element_json(objects.front().root);
}

}  // namespace

TEST_CASE(
    "References: a TrainJob's runtimes, Argo's workflow templates, every profile's queue kind and DRA's claim objects "
    "are watched, nothing else") {
  const auto wanted = referenced_kinds(shipped_state()->current());
  CHECK(wanted.count("trainer.kubeflow.org/TrainingRuntime"));
  CHECK(wanted.count("trainer.kubeflow.org/ClusterTrainingRuntime"));
  CHECK(wanted.count("argoproj.io/WorkflowTemplate"));
  CHECK(wanted.count("argoproj.io/ClusterWorkflowTemplate"));
  CHECK(wanted.count("scheduling.run.ai/Queue"));      // kai's queues
  CHECK(wanted.count("scheduling.volcano.sh/Queue"));  // volcano's
  CHECK(wanted.at("scheduling.run.ai/Queue").version == "v2");
  for (const char* dra :
       {"resource.k8s.io/ResourceClaimTemplate", "resource.k8s.io/ResourceClaim", "resource.k8s.io/DeviceClass"}) {
    INFO(dra);
    REQUIRE(wanted.count(dra));
    CHECK(wanted.at(dra).version == "v1");
  }
  for (const auto& [key, gvk] : wanted)
    CHECK((gvk.group == "trainer.kubeflow.org" || gvk.kind == "Queue" || gvk.group == "resource.k8s.io" ||
           gvk.kind.ends_with("WorkflowTemplate")));
}

TEST_CASE("References: the profiles' topology objects are watched only while a rule names a topology") {
  CHECK_FALSE(referenced_kinds(shipped_state()->current()).count("kai.scheduler/Topology"));
  std::string policy = test::read_file(test::source_path("manifests/base/policy.yaml"));
  policy.insert(policy.find("\nrules:\n") + 1, "topologies:\n  racks: {levels: [example.com/rack]}\n");
  policy +=
      "- name: racks\n  namespaces: [racks]\n  profile: kai\n  topology: {name: racks, required: example.com/rack}\n";
  const auto wanted = referenced_kinds(test::state_with_policy(policy, "topology-policy.yaml")->current());
  REQUIRE(wanted.count("kai.scheduler/Topology"));
  CHECK(wanted.at("kai.scheduler/Topology").version == "v1alpha1");
  CHECK(wanted.count("kueue.x-k8s.io/Topology"));
  CHECK(wanted.count("topology.volcano.sh/HyperNode"));
}

TEST_CASE("References: what the list and the watch bring is held for admission, without managed fields") {
  test::FakeCluster cluster(shipped_state());
  const std::string trainer = "/apis/trainer.kubeflow.org/v1alpha1";
  cluster.api.answer("GET", trainer, 200,
                     R"({"kind":"APIResourceList","resources":[)"
                     R"({"name":"trainingruntimes","namespaced":true,"kind":"TrainingRuntime"},)"
                     R"({"name":"clustertrainingruntimes","namespaced":false,"kind":"ClusterTrainingRuntime"}]})");
  cluster.api.answer("GET", trainer + "/trainingruntimes", 200, R"({"metadata":{"resourceVersion":"1"},"items":[]})");
  std::string listed = runtime_json("torch-distributed.yaml");
  listed.insert(listed.find("\"metadata\":{") + 12, R"("managedFields":[{"manager":"kubectl"}],)");
  cluster.api.answer("GET", trainer + "/clustertrainingruntimes", 200,
                     R"({"metadata":{"resourceVersion":"7"},"items":[)" + listed + "]}");
  cluster.api.answer("WATCH", trainer + "/clustertrainingruntimes", 200,
                     R"({"type":"ADDED","object":)" + runtime_json("deepspeed-distributed.yaml") + "}\n");
  cluster.api.answer("WATCH", trainer + "/trainingruntimes", 200, "");
  // A DRA claim template, as a pod's resourceClaims name it.
  const std::string dra = "/apis/resource.k8s.io/v1";
  cluster.api.answer("GET", dra, 200,
                     R"({"kind":"APIResourceList","resources":[)"
                     R"({"name":"resourceclaimtemplates","namespaced":true,"kind":"ResourceClaimTemplate"}]})");
  cluster.api.answer("GET", dra + "/resourceclaimtemplates", 200,
                     R"({"metadata":{"resourceVersion":"3"},"items":[{"apiVersion":"resource.k8s.io/v1",)"
                     R"("kind":"ResourceClaimTemplate","metadata":{"name":"one-gpu","namespace":"team-a"},)"
                     R"("spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":)"
                     R"({"deviceClassName":"gpu.nvidia.com"}}]}}}}]})");
  cluster.api.answer("WATCH", dra + "/resourceclaimtemplates", 200, "");

  ReferenceWatch watch(cluster.context());
  std::atomic<bool> stop{false};
  std::thread running([&] { watch.run(stop); });
  view::ReferenceStore& store = cluster.state->references();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((!store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "", "deepspeed-distributed") ||
          !store.holds_kind("resource.k8s.io", "ResourceClaimTemplate")) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  running.join();
  CHECK(store.holds_kind("trainer.kubeflow.org", "ClusterTrainingRuntime"));
  CHECK(store.holds_kind("trainer.kubeflow.org", "TrainingRuntime"));
  const auto torch = store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "", "torch-distributed");
  REQUIRE(torch);
  CHECK(torch->find("managedFields") == std::string::npos);
  CHECK(store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "", "deepspeed-distributed"));
  CHECK(store.find("resource.k8s.io", "ResourceClaimTemplate", "team-a", "one-gpu"));
  // The queue kinds are not served by this API server: not held, so admission does not warn of missing queues.
  CHECK_FALSE(store.holds_kind("scheduling.run.ai", "Queue"));
  // The list and the watch asked for the collection the discovery named.
  CHECK(!cluster.api.calls("WATCH", trainer + "/clustertrainingruntimes?").empty());
}

}  // namespace wm::controllers

namespace wm::controllers {

// A profile's PodGroup kind that the API server does not serve gives no gang: the reference watch asks discovery at
// its start (and every 30 s), and the store says it to admission (webhook/reviewer.h unserved_pod_group).
TEST_CASE("References: the PodGroup kind of each profile in use is checked at start, and one not served is said") {
  const std::string policy = test::policy_with_rules("- name: all\n  profile: native\n");
  const auto wanted = pod_group_kinds(test::state_with_policy(policy, "native-policy.yaml")->current());
  REQUIRE(wanted.size() == 2);  // only the profiles a rule uses: native's PodGroup and Workload
  CHECK(wanted.at("scheduling.k8s.io/PodGroup").str() == "PodGroup.scheduling.k8s.io/v1beta1");
  CHECK(wanted.at("scheduling.k8s.io/Workload").str() == "Workload.scheduling.k8s.io/v1beta1");
  CHECK(pod_group_kinds(shipped_state()->current()).empty());  // kai: KAI's podgrouper makes its own

  test::FakeCluster cluster(test::state_with_policy(policy, "native-policy.yaml"));
  cluster.api.answer("GET", "/apis/scheduling.k8s.io/v1beta1", 404, R"({"kind":"Status","code":404})");
  ReferenceWatch watch(cluster.context());
  std::atomic<bool> stop{false};
  std::thread running([&] { watch.run(stop); });
  view::ReferenceStore& store = cluster.state->references();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!(store.known_unserved("scheduling.k8s.io", "PodGroup") &&
           store.known_unserved("scheduling.k8s.io", "Workload")) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  running.join();
  CHECK(store.known_unserved("scheduling.k8s.io", "PodGroup"));
  CHECK(store.known_unserved("scheduling.k8s.io", "Workload"));
}

}  // namespace wm::controllers
