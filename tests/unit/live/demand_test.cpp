// The workload metrics without an API server: the store that holds what the watches see (in any order, as little as
// each object's use needs), the demand each workload makes, the sums the gauges are set from, and the controller that
// ties them, driven as its watches would drive it.
#include "live/demand.h"

#include <catch2/catch.hpp>

#include "controllers/workload_demand.h"
#include "live/live_store.h"
#include "mapper/view/resources.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"
#include "tests/unit/live/live_fixtures.h"

namespace wm::live {
using namespace fixtures;  // NOLINT: the fixtures are these tests' vocabulary

namespace {

std::string kept_pod(const std::string& json, const catalog::Catalog& catalog) {
  simdjson::dom::parser parser;
  return pod_as_kept(parser.parse(json).value(), catalog);
}

// The one workload `uid` is, as the store holds it, made as `get` makes it.
std::optional<WorkloadDemand> demand_in(const LiveStore& store, const std::string& uid,
                                        const policy::AdmissionState& state) {
  if (!store.is_workload(uid, *state.catalog)) return std::nullopt;
  const Snapshot snapshot = store.snapshot_of(uid, *state.catalog);
  auto workloads = live_workloads(state, snapshot);
  REQUIRE(workloads.size() == 1);
  return demand_of(workloads[0]);
}

const char* const kBoundPodGroup =
    R"({"metadata":{"name":"pg-paralleljobs-js-1","namespace":"team-a","uid":"pg-1","ownerReferences":[)"
    R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"paralleljobs","uid":"js-1"}]},)"
    R"("spec":{"minMember":5,"queue":"team-a"},"status":{}})";

}  // namespace

TEST_CASE("live store: a workload's pods, Jobs and PodGroup, in whatever order they come, are one workload") {
  const policy::AdmissionState state = state_with(Snapshot{});
  const catalog::Catalog& catalog = *state.catalog;
  LiveStore store;
  std::set<std::string> touched;
  // Pods first, as a relist of pods may come before the JobSets': each its own until its owners come.
  for (int i = 0; i < 4; ++i)
    store.put(LiveRole::Pod, "v1", "Pod",
              kept_pod(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "", "Pending"), catalog),
              catalog, touched);
  store.put(LiveRole::Pod, "v1", "Pod", kept_pod(pod("d-0", "paralleljobs-driver-0", "job-d", "", "Pending"), catalog),
            catalog, touched);
  CHECK(store.workloads(catalog).size() == 5);  // bare pods, as `get` would show them while their Jobs are unseen
  store.put(LiveRole::Object, "batch/v1", "Job", job("paralleljobs-workers-0", "job-w"), catalog, touched);
  store.put(LiveRole::Object, "batch/v1", "Job", job("paralleljobs-driver-0", "job-d"), catalog, touched);
  store.put(LiveRole::Gang, "scheduling.run.ai/v2alpha2", "PodGroup", kUnschedulablePodGroup, catalog, touched);
  CHECK(store.workloads(catalog).size() == 2);  // the Jobs
  touched.clear();
  store.put(LiveRole::Object, "jobset.x-k8s.io/v1alpha2", "JobSet", stored_jobset(4), catalog, touched);
  // The JobSet, and the Jobs that were workloads until it came: their series must go.
  CHECK(touched == std::set<std::string>{"js-1", "job-w", "job-d"});
  CHECK(store.workloads(catalog) == std::vector<std::string>{"js-1"});
  CHECK(store.workload_of("pod-w-2", catalog) == "js-1");

  const auto pending = demand_in(store, "js-1", state);
  REQUIRE(pending);
  CHECK(pending->phase == "Pending");
  CHECK(pending->pods == PodCounts{5, 5, 0, 0});
  CHECK(view::gpu_count(pending->requests) == 20);
  CHECK(pending->gangs_waiting == 1);
  CHECK(pending->scheduler == "kai-scheduler");
  CHECK_FALSE(demand_in(store, "job-w", state));

  // A pod bound and running touches its workload alone.
  touched.clear();
  for (int i = 0; i < 4; ++i)
    store.put(LiveRole::Pod, "v1", "Pod",
              kept_pod(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "n1", "Running"), catalog),
              catalog, touched);
  store.put(LiveRole::Pod, "v1", "Pod",
            kept_pod(pod("d-0", "paralleljobs-driver-0", "job-d", "n2", "Running"), catalog), catalog, touched);
  store.put(LiveRole::Gang, "scheduling.run.ai/v2alpha2", "PodGroup", kBoundPodGroup, catalog, touched);
  CHECK(touched == std::set<std::string>{"js-1"});
  const auto running = demand_in(store, "js-1", state);
  REQUIRE(running);
  CHECK(running->phase == "Running");
  CHECK(running->pods == PodCounts{5, 5, 5, 5});
  CHECK(running->gangs_waiting == 0);

  // The JobSet gone (its Jobs not yet collected): they are workloads again.
  touched.clear();
  store.remove("js-1", catalog, touched);
  CHECK(touched.count("js-1"));
  CHECK(touched.count("job-w"));
  CHECK(store.is_workload("job-w", catalog));
  CHECK(store.counts().objects == 2);
}

TEST_CASE("live store: a counted pod keeps a fraction of itself, one that may be a workload keeps its spec") {
  const catalog::Catalog& catalog = test::builtin_catalog();
  simdjson::dom::parser parser;
  std::string full = pod("w-0", "paralleljobs-workers-0", "job-w", "n1", "Running");
  full.insert(full.find(R"("spec":{)") + 8,
              R"("containers":[{"name":"train","image":"registry.example/train:1","env":[{"name":"A","value":"1"}],)"
              R"("resources":{"limits":{"nvidia.com/gpu":4}}}],)");
  const std::string counted = pod_as_kept(parser.parse(full).value(), catalog);
  CHECK(counted.find("containers") == std::string::npos);
  CHECK(counted.find("\"nodeName\":\"n1\"") != std::string::npos);
  CHECK(counted.find("PodScheduled") != std::string::npos);
  CHECK(counted.size() < full.size());
  // Its controller's kind unknown to the catalog: it may be a workload of its own, so its spec stays.
  std::string foreign = full;
  foreign.replace(foreign.find(R"("kind":"Job")"), 12, R"("kind":"Foo")");
  const std::string kept = pod_as_kept(parser.parse(foreign).value(), catalog);
  CHECK(kept.find("\"nvidia.com/gpu\":4") != std::string::npos);
  // kubectl's last-applied-configuration and the managedFields are never kept.
  const std::string object =
      R"({"metadata":{"name":"a","managedFields":[{"manager":"kubectl"}],"annotations":{"keep":"1",)"
      R"("kubectl.kubernetes.io/last-applied-configuration":"{}"}},"spec":{"x":1}})";
  CHECK(object_as_kept(parser.parse(object).value()) == R"({"metadata":{"name":"a","annotations":{"keep":"1"}},)"
                                                        R"("spec":{"x":1}})");
}

TEST_CASE("demand totals: series per namespace, kind and phase, and a series goes with its last workload") {
  DemandTotals totals;
  WorkloadDemand a{"team-a", "JobSet", "Pending", "kai-scheduler", {5, 5, 0, 0}, {}, 1};
  a.requests.insert_or_assign("nvidia.com/gpu", view::Quantity::units(20));
  a.requests.insert_or_assign("cpu", *view::Quantity::parse("500m"));
  WorkloadDemand b = a;
  b.phase = "Running";
  b.gangs_waiting = 0;
  totals.add(a);
  totals.add(a);
  totals.add(b);
  using Labels = DemandTotals::Labels;
  CHECK(totals.workloads() == std::vector<DemandTotals::Series>{
                                  {Labels{{"namespace", "team-a"}, {"kind", "JobSet"}, {"phase", "Pending"}}, 2},
                                  {Labels{{"namespace", "team-a"}, {"kind", "JobSet"}, {"phase", "Running"}}, 1}});
  CHECK(totals.requests()[0] ==
        DemandTotals::Series{
            Labels{{"namespace", "team-a"}, {"kind", "JobSet"}, {"phase", "Pending"}, {"resource", "cpu"}}, 1});
  CHECK(totals.requests()[1].value == 40);
  CHECK(totals.gangs_waiting() ==
        std::vector<DemandTotals::Series>{
            {Labels{{"namespace", "team-a"}, {"kind", "JobSet"}, {"scheduler", "kai-scheduler"}}, 2}});
  CHECK(totals.pods().size() == 6);  // expected, scheduled, running of each
  totals.subtract(a);
  totals.subtract(a);
  CHECK(totals.workloads().size() == 1);
  CHECK(totals.gangs_waiting().empty());
  totals.subtract(b);
  CHECK(totals.size() == 0);
  CHECK(totals.requests().empty());
}

TEST_CASE("workload metrics: a JobSet's demand on /metrics, Pending while KAI holds its gang, then Running") {
  test::FakeCluster cluster(
      test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")), "policy.yaml"));
  controllers::WorkloadDemandWatch watch(cluster.context());
  const catalog::Catalog& catalog = *cluster.state->current().catalog;
  const catalog::GroupVersionKind jobsets{"jobset.x-k8s.io", "v1alpha2", "JobSet"}, jobs{"batch", "v1", "Job"},
      pods{"", "v1", "Pod"}, pod_groups{"scheduling.run.ai", "v2alpha2", "PodGroup"};
  std::vector<std::string> pending_pods;
  for (int i = 0; i < 4; ++i)
    pending_pods.push_back(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "", "Pending"));
  pending_pods.push_back(pod("d-0", "paralleljobs-driver-0", "job-d", "", "Pending"));
  for (auto& p : pending_pods) p = kept_pod(p, catalog);
  watch.relisted(pods, pending_pods);
  watch.relisted(jobsets, {stored_jobset(4)});
  watch.relisted(jobs, {job("paralleljobs-workers-0", "job-w"), job("paralleljobs-driver-0", "job-d")});
  watch.relisted(pod_groups, {kUnschedulablePodGroup});
  watch.publish_once();
  auto metric = [&](const std::string& series) {
    const std::string text = cluster.metrics.render();
    const size_t at = text.find("\n" + series + " ");
    return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
  };
  const std::string pending = R"(namespace="team-a",kind="JobSet",phase="Pending")";
  CHECK(metric("workload_map_workloads{" + pending + "}") == 1);
  CHECK(metric("workload_map_workload_pods{" + pending + R"(,state="expected"})") == 5);
  CHECK(metric("workload_map_workload_pods{" + pending + R"(,state="scheduled"})") == 0);
  CHECK(metric("workload_map_workload_requests{" + pending + R"(,resource="nvidia.com/gpu"})") == 20);
  CHECK(metric(R"(workload_map_gangs_waiting{namespace="team-a",kind="JobSet",scheduler="kai-scheduler"})") == 1);
  CHECK(metric(R"(workload_map_live_objects{role="pod"})") == 5);
  // Nothing counted twice: the Jobs are the JobSet's, not workloads of their own.
  CHECK(metric(R"(workload_map_workloads{namespace="team-a",kind="Job",phase="Pending"})") == -1);

  for (int i = 0; i < 4; ++i)
    watch.changed(pods, kube::EventType::Modified,
                  kept_pod(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "n1", "Running"), catalog));
  watch.changed(pods, kube::EventType::Modified,
                kept_pod(pod("d-0", "paralleljobs-driver-0", "job-d", "n1", "Running"), catalog));
  watch.changed(pod_groups, kube::EventType::Modified, kBoundPodGroup);
  watch.publish_once();
  const std::string running = R"(namespace="team-a",kind="JobSet",phase="Running")";
  CHECK(metric("workload_map_workloads{" + running + "}") == 1);
  CHECK(metric("workload_map_workload_pods{" + running + R"(,state="running"})") == 5);
  CHECK(metric("workload_map_workloads{" + pending + "}") == -1);
  CHECK(metric(R"(workload_map_gangs_waiting{namespace="team-a",kind="JobSet",scheduler="kai-scheduler"})") == -1);

  // Deleted with its Jobs and pods (the garbage collector's order: owner first): nothing is left counted.
  watch.changed(jobsets, kube::EventType::Deleted, stored_jobset(4));
  watch.relisted(jobs, {});
  watch.relisted(pods, {});
  watch.publish_once();
  CHECK(metric("workload_map_workloads{" + running + "}") == -1);
  CHECK(cluster.metrics.render().find("workload_map_workloads{") == std::string::npos);
}

}  // namespace wm::live
