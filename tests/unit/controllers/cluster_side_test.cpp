// The cluster side's wiring over a fake API server: it lists Kartas before it calls itself ready, takes the Lease
// when nobody holds it, and then writes (here: the webhook configuration's missing rules) as the leader.
#include "controllers/cluster_side.h"

#include <catch2/catch.hpp>
#include <thread>

#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return condition();
}

}  // namespace

TEST_CASE("Cluster side: ready once the Kartas are listed, leader once the Lease is free, and only then writes") {
  auto state = test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")),
                                       "cluster-side-policy.yaml");
  Metrics metrics;
  const Logger log(LogLevel::Error);
  auto api = std::make_unique<test::FakeApi>();
  test::FakeApi& fake = *api;
  fake.answer("GET", "/apis/run.ai/v1alpha1/kartas", 200, R"({"metadata":{"resourceVersion":"1"},"items":[]})");
  fake.answer("WATCH", "/apis/run.ai/v1alpha1/kartas", 200, "");
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/workload-map/leases";
  fake.answer("POST", leases, 201);
  fake.answer("GET", "/apis/jobset.x-k8s.io/v1alpha2", 200, test::discovery_document("JobSet", "jobsets"));
  const std::string mutating = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/workload-map";
  fake.answer(
      "GET", mutating, 200,
      R"({"metadata":{"name":"workload-map","resourceVersion":"3"},"webhooks":[{"name":"mutate","rules":[]}]})");
  fake.answer("PATCH", mutating, 200);

  ClusterOptions options;
  options.lease_namespace = "workload-map";
  options.identity = "replica-1";
  ClusterSide cluster(options, *state, metrics, log);
  REQUIRE(cluster.start(std::move(api)));
  CHECK(eventually([&] { return state->ready(); }));
  // The series, not the HELP line (which begins "1 while this replica holds the Lease").
  CHECK(eventually([&] { return metrics.render().find("\nworkload_map_leader 1\n") != std::string::npos; }));
  const auto created = fake.calls("POST", leases);
  REQUIRE(!created.empty());
  CHECK(created[0].body.find(R"("holderIdentity":"replica-1")") != std::string::npos);
  CHECK(eventually([&] { return !fake.calls("PATCH", mutating).empty(); }));
  cluster.stop();
}

}  // namespace wm::controllers
