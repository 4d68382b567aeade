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

TEST_CASE("References: a TrainJob's runtimes and every profile's queue kind are watched, nothing else") {
  const auto wanted = referenced_kinds(shipped_state()->current());
  CHECK(wanted.count("trainer.kubeflow.org/TrainingRuntime"));
  CHECK(wanted.count("trainer.kubeflow.org/ClusterTrainingRuntime"));
  CHECK(wanted.count("scheduling.run.ai/Queue"));      // kai's queues
  CHECK(wanted.count("scheduling.volcano.sh/Queue"));  // volcano's
  CHECK(wanted.at("scheduling.run.ai/Queue").version == "v2");
  for (const auto& [key, gvk] : wanted) CHECK((gvk.group == "trainer.kubeflow.org" || gvk.kind == "Queue"));
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

  ReferenceWatch watch(cluster.context());
  std::atomic<bool> stop{false};
  std::thread running([&] { watch.run(stop); });
  view::ReferenceStore& store = cluster.state->references();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!store.find("trainer.kubeflow.org", "ClusterTrainingRuntime", "", "deepspeed-distributed") &&
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
  // The queue kinds are not served by this API server: not held, so admission does not warn of missing queues.
  CHECK_FALSE(store.holds_kind("scheduling.run.ai", "Queue"));
  // The list and the watch asked for the collection the discovery named.
  CHECK(!cluster.api.calls("WATCH", trainer + "/clustertrainingruntimes?").empty());
}

}  // namespace wm::controllers
