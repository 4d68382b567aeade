// The live view without an API server: a snapshot built from a real JobSet manifest (the corpus's), the Jobs and pods
// its controller would make, and the objects KAI's and Kueue's controllers write, read by the shipped policy's
// profiles (their gangStatus). What `get` and `describe` print is a function of this.
#include <catch2/catch.hpp>

#include "kube/list.h"
#include "live/inventory.h"
#include "live/label_selector.h"
#include "live/live_json.h"
#include "live/why.h"
#include "tests/support/fake_api.h"
#include "tests/support/test_support.h"
#include "tests/unit/live/live_fixtures.h"

namespace wm::live {
using namespace fixtures;  // NOLINT: the fixtures are these tests' vocabulary

TEST_CASE("live: a JobSet's Jobs and pods are its own, under one workload, with the PodGroup KAI made for it") {
  SnapshotBuilder b = pending_jobset();
  // A Job no JobSet owns is a workload of its own; a pod it owns is its.
  b.object("batch/v1", "Job", R"({"metadata":{"name":"alone","namespace":"team-a","uid":"job-alone"}})");
  b.pod(pod("alone-0", "alone", "job-alone", "node-1", "Running"));
  const auto trees = workload_trees(test::builtin_catalog(), b.snapshot);
  REQUIRE(trees.size() == 2);
  CHECK(trees[0].root.kind == "JobSet");
  CHECK(trees[0].children == std::vector<size_t>{1, 2});
  CHECK(trees[0].pods.size() == 5);
  CHECK(trees[0].gang_objects == std::vector<size_t>{0});
  CHECK(trees[1].root.kind == "Job");
  CHECK(trees[1].pods == std::vector<size_t>{5});
}

TEST_CASE("live: a JobSet waiting for GPUs under KAI is Pending, gang 0/5 Unschedulable, in KAI's words") {
  SnapshotBuilder b = pending_jobset();
  b.event(R"({"involvedObject":{"kind":"PodGroup","name":"pg-paralleljobs-js-1","uid":"pg-1"},"type":"Normal",)"
          R"("reason":"Unschedulable","message":"Unable to schedule podgroup"})");
  b.event(R"({"involvedObject":{"kind":"Job","name":"paralleljobs-workers-0","uid":"job-w"},"type":"Normal",)"
          R"("reason":"SuccessfulCreate","message":"Created pod: w-0"})");
  const policy::AdmissionState state = state_with(b.snapshot);
  auto workloads = live_workloads(state, b.snapshot);
  REQUIRE(workloads.size() == 1);
  const LiveWorkload& w = workloads[0];
  CHECK(w.profile == "kai");
  CHECK(w.phase == "Pending");  // the definition says initializing and running: Jobs are active, no pod is bound
  CHECK(w.view.phases == std::vector<std::string>{"initializing", "running"});
  CHECK(w.pods.expected == 5);
  CHECK(w.pods.existing == 5);
  CHECK(w.pods.scheduled == 0);
  CHECK(w.scheduler == "kai-scheduler");
  CHECK(w.queue == "team-a");
  CHECK(gang_summary(w) == "0/5 Unschedulable");
  REQUIRE(w.gangs.size() == 1);
  CHECK(w.gangs[0].reasons == std::vector<std::string>{"Resources were not found for pod group",
                                                       "node-group pool: 4 GPUs requested, 0 available"});
  const auto why = why_waiting(state, b.snapshot, w);
  std::vector<std::string> said;
  for (const auto& r : why) said.push_back(r.source + ": " + r.text);
  CHECK(said ==
        std::vector<std::string>{"PodGroup pg-paralleljobs-js-1: Resources were not found for pod group",
                                 "PodGroup pg-paralleljobs-js-1: node-group pool: 4 GPUs requested, 0 available",
                                 "pod w-0 and 4 more: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                                 "event Unschedulable on PodGroup/pg-paralleljobs-js-1: Unable to schedule podgroup"});
  // -o json carries the same, for scripts.
  simdjson::dom::parser parser;
  simdjson::dom::element out = parser.parse(workloads_json(workloads, {})).value();
  CHECK(test::string_at(out, "/items/0/phase") == "Pending");
  CHECK(test::string_at(out, "/items/0/gang/summary") == "0/5 Unschedulable");
  CHECK(int64_t(out.at_pointer("/items/0/pods/expected").get_int64().value()) == 5);
}

TEST_CASE("live: once KAI binds the pods the JobSet is Running, and nothing says it waits") {
  SnapshotBuilder b;
  b.object("jobset.x-k8s.io/v1alpha2", "JobSet", stored_jobset());
  b.object("batch/v1", "Job", job("paralleljobs-workers-0", "job-w"));
  b.object("batch/v1", "Job", job("paralleljobs-driver-0", "job-d"));
  for (int i = 0; i < 4; ++i) b.pod(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "n1", "Running"));
  b.pod(pod("d-0", "paralleljobs-driver-0", "job-d", "n2", "Running"));
  b.gang_object("scheduling.run.ai/v2alpha2", "PodGroup",
                R"({"metadata":{"name":"pg","uid":"pg-1","ownerReferences":[{"uid":"js-1"}]},"spec":{"minMember":5}})");
  const policy::AdmissionState state = state_with(b.snapshot);
  auto workloads = live_workloads(state, b.snapshot);
  REQUIRE(workloads.size() == 1);
  CHECK(workloads[0].phase == "Running");
  CHECK(gang_summary(workloads[0]) == "5/5");
  CHECK(why_waiting(state, b.snapshot, workloads[0]).empty());
}

TEST_CASE("live: what workload-map knows of a waiting gang: a queue KAI lacks, a gang larger than the cluster") {
  SnapshotBuilder b = pending_jobset(4);
  b.snapshot.references->replace_kind(
      "scheduling.run.ai", "Queue",
      {R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"default-queue"}})"});
  b.snapshot.cluster_gpus = 2;
  b.snapshot.largest_node_gpus = 1;
  const policy::AdmissionState state = state_with(b.snapshot);
  auto workloads = live_workloads(state, b.snapshot);
  REQUIRE(workloads.size() == 1);
  std::vector<std::string> said;
  for (const auto& r : why_waiting(state, b.snapshot, workloads[0]))
    if (r.source == "workload-map") said.push_back(r.text);
  CHECK(said ==
        std::vector<std::string>{"queue team-a does not exist: the cluster has no scheduling.run.ai/v2 Queue named so",
                                 "gang paralleljobs needs 20 GPUs at once; the cluster's nodes have 2 in all",
                                 "a pod of workers asks for 4 GPUs; the largest node has 1",
                                 "a pod of driver asks for 4 GPUs; the largest node has 1"});
}

TEST_CASE("live: the shipped profiles read their schedulers' gang objects") {
  const policy::Policy policy = policy::Policy::builtin();
  SnapshotBuilder b;
  SECTION("Kueue's Workload: its pod sets' counts, QuotaReserved false and why") {
    b.gang_object("kueue.x-k8s.io/v1beta2", "Workload",
                  R"({"metadata":{"name":"jobset-train-1"},"spec":{"podSets":[{"name":"leader","count":1},)"
                  R"({"name":"workers","count":4}]},"status":{"conditions":[{"type":"QuotaReserved","status":"False",)"
                  R"("reason":"Pending","message":"couldn't assign flavors to pod set workers: insufficient quota )"
                  R"(for nvidia.com/gpu in flavor gpu, request > maximum capacity, 16 > 8"}]}})");
    const GangState g = gang_state(policy.profile("kueue")->gang_status, b.snapshot.gang_objects[0]);
    CHECK(g.min_member == 5);
    CHECK(g.waiting);
    CHECK(g.state == "Pending");
    CHECK(g.reasons.size() == 1);
  }
  SECTION("Volcano's PodGroup: its phase, and its Unschedulable condition when it waits") {
    b.gang_object("scheduling.volcano.sh/v1beta1", "PodGroup",
                  R"({"metadata":{"name":"train"},"spec":{"minMember":3},"status":{"phase":"Inqueue"}})");
    b.gang_object("scheduling.volcano.sh/v1beta1", "PodGroup",
                  R"({"metadata":{"name":"wait"},"spec":{"minMember":3},"status":{"phase":"Pending","conditions":[)"
                  R"({"type":"Unschedulable","status":"True","reason":"NotEnoughResources","message":"3/3 tasks in )"
                  R"(gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable"}]}})");
    const auto& source = policy.profile("volcano")->gang_status;
    CHECK(gang_state(source, b.snapshot.gang_objects[0]).state == "Inqueue");
    const GangState waiting = gang_state(source, b.snapshot.gang_objects[1]);
    CHECK(waiting.state == "NotEnoughResources");
    CHECK(waiting.min_member == 3);
  }
  SECTION("Kubernetes' PodGroup: its gang's minCount, PodGroupInitiallyScheduled false") {
    b.gang_object("scheduling.k8s.io/v1beta1", "PodGroup",
                  R"({"metadata":{"name":"train"},"spec":{"schedulingPolicy":{"gang":{"minCount":4}}},)"
                  R"("status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"False",)"
                  R"("reason":"Unschedulable","message":"0/4 nodes fit"}]}})");
    const GangState g = gang_state(policy.profile("native")->gang_status, b.snapshot.gang_objects[0]);
    CHECK(g.min_member == 4);
    CHECK(g.state == "Unschedulable");
    CHECK(g.reasons == std::vector<std::string>{"0/4 nodes fit"});
  }
}

TEST_CASE("live: one phase from the definition's and the pods'") {
  const PodCounts none_bound{5, 5, 0, 0}, bound{5, 5, 5, 5};
  CHECK(live_phase({"initializing", "running"}, none_bound, false) == "Pending");
  CHECK(live_phase({"initializing", "running"}, bound, false) == "Running");
  CHECK(live_phase({"failed"}, none_bound, true) == "Failed");
  CHECK(live_phase({"completed"}, bound, false) == "Completed");
  CHECK(live_phase({"suspended"}, {5, 0, 0, 0}, false) == "Suspended");
  // Kueue suspends what it has not admitted, and its Workload says the gang waits: queued, not suspended.
  CHECK(live_phase({"suspended"}, {5, 0, 0, 0}, true) == "Pending");
  CHECK(live_phase({"Undefined"}, bound, false) == "Running");
  CHECK(live_phase({"Undefined"}, {0, 0, 0, 0}, false) == "Unknown");
  CHECK(live_phase({"degraded", "running"}, {5, 5, 3, 3}, false) == "Degraded");
}

TEST_CASE("live: label selectors as kubectl's -l takes them") {
  simdjson::dom::parser parser;
  const std::string labelled = R"({"metadata":{"labels":{"team":"a","tier":"gpu"}}})";
  simdjson::dom::element o = parser.parse(labelled).value();
  auto matches = [&](const char* text) { return LabelSelector::parse(text).value().matches(o); };
  CHECK(matches(""));
  CHECK(matches("team=a"));
  CHECK(matches("team==a,tier"));
  CHECK_FALSE(matches("team!=a"));
  CHECK(matches("team in (a, b), !missing"));
  CHECK_FALSE(matches("team notin (a,b)"));
  CHECK_FALSE(matches("missing"));
  CHECK(LabelSelector::parse("team in a").error() == "cannot read the selector requirement \"team in a\"");
  CHECK_FALSE(LabelSelector::parse("=a"));
}

}  // namespace wm::live

namespace wm::live {

TEST_CASE("live: a collection is read page by page, and a page refused ends the read with what came before") {
  test::FakeApi api;
  const std::string path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/team-a/jobsets";
  api.answer("GET", path + "?limit=500", 200,
             R"({"metadata":{"continue":"page 2"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  api.answer("GET", path + "?limit=500&continue=page%202", 200,
             R"({"metadata":{},"items":[{"metadata":{"name":"c"}}]})");
  kube::Listed listed = kube::list_all(api, path);
  CHECK(listed.ok());
  REQUIRE(listed.items.size() == 3);
  CHECK(test::string_at(listed.items[2], "/metadata/name") == "c");
  CHECK(kube::typed_item(listed.items[0], "jobset.x-k8s.io/v1alpha2", "JobSet") ==
        R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"a"}})");

  api.answer("GET", path + "?limit=500&continue=page%202", 403,
             R"({"kind":"Status","message":"jobsets.jobset.x-k8s.io is forbidden: User \"dev\" cannot list"})");
  listed = kube::list_all(api, path);
  CHECK(listed.items.size() == 2);
  CHECK(listed.status == 403);
  CHECK(listed.error == "list " + path + ": HTTP 403: jobsets.jobset.x-k8s.io is forbidden: User \"dev\" cannot list");
}

}  // namespace wm::live
