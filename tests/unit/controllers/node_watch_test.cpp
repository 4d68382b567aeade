// The Nodes watch without an API server: which label keys it keeps (the policy's topologies), and that the domains a
// list and a watch of a fake API server bring are what admission then reads.
#include "controllers/node_watch.h"

#include <catch2/catch.hpp>
#include <thread>

#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {
namespace {

const char* const kPolicy = R"(apiVersion: workload-map.io/v1alpha1
kind: Policy
topologies:
  racks: {levels: [example.com/block, example.com/rack, kubernetes.io/hostname]}
rules:
- name: all
  profile: kai
  topology: {name: racks, required: example.com/rack, preferred: kubernetes.io/hostname}
)";

std::string node(const std::string& name, const std::string& rack, int gpus) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"(","labels":{"example.com/rack":")" +
         rack + R"("}},"status":{"allocatable":{"nvidia.com/gpu":")" + std::to_string(gpus) + R"("}}})";
}

}  // namespace

TEST_CASE("Nodes: the label keys of the policy's topologies are kept, and none without a topology") {
  auto state = test::state_with_policy(kPolicy, "node-watch-policy.yaml");
  CHECK(topology_label_keys(state->current()) ==
        std::vector<std::string>{"example.com/block", "example.com/rack", "kubernetes.io/hostname"});
  auto shipped = test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")),
                                         "node-watch-shipped.yaml");
  CHECK(topology_label_keys(shipped->current()).empty());
}

TEST_CASE("Nodes: what the list and the watch bring is summed for admission, a deleted node no more") {
  test::FakeCluster cluster(test::state_with_policy(kPolicy, "node-watch-policy.yaml"));
  cluster.api.answer("GET", "/api/v1/nodes", 200,
                     R"({"metadata":{"resourceVersion":"5"},"items":[)" + node("a1", "rack-a", 8) + "," +
                         node("a2", "rack-a", 8) + "," + node("b1", "rack-b", 8) + "]}");
  cluster.api.answer("WATCH", "/api/v1/nodes", 200,
                     R"({"type":"DELETED","object":)" + node("a2", "rack-a", 8) + "}\n" +
                         R"({"type":"ADDED","object":)" + node("b2", "rack-b", 8) + "}\n");
  NodeWatch watch(cluster.context());
  std::atomic<bool> stop{false};
  std::thread running([&] { watch.run(stop); });
  view::ReferenceStore& store = cluster.state->references();
  auto rack_b_largest = [&] {
    auto domains = store.node_domains();
    const view::LargestDomain* d = domains ? domains->largest("example.com/rack", "nvidia.com/gpu") : nullptr;
    return d && d->value == "rack-b";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!rack_b_largest() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  running.join();
  REQUIRE(store.node_domains());
  const view::LargestDomain* rack = store.node_domains()->largest("example.com/rack", "nvidia.com/gpu");
  REQUIRE(rack);
  CHECK(rack->value == "rack-b");  // rack-a is down to one node once a2 is deleted
  CHECK(rack->room == view::Quantity::units(16));
  CHECK(store.node_domains()->knows("kubernetes.io/hostname"));
  CHECK_FALSE(store.node_domains()->carries("example.com/block"));
}

}  // namespace wm::controllers
