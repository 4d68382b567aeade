// The PodGroup controller without an API server: what it decides (controllers/pod_group_plan.h) over the corpus's
// real manifests and the shipped profiles, and what it then does with a fake API server's answers.
#include "controllers/pod_groups.h"

#include <catch2/catch.hpp>

#include "controllers/pod_group_plan.h"
#include "mapper/expr/path_expression.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

const kube::Resource kVolcanoPodGroups{"scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", true};

Result<kube::Resource> volcano_served(const std::string& group, const std::string& version, const std::string& kind) {
  if (group == kVolcanoPodGroups.group && kind == kVolcanoPodGroups.kind) return kVolcanoPodGroups;
  return Error{"not served", ErrorCode::NotFound};
}

const kube::Resource kNativePodGroups{"scheduling.k8s.io", "v1beta1", "PodGroup", "podgroups", true};
const kube::Resource kNativeWorkloads{"scheduling.k8s.io", "v1beta1", "Workload", "workloads", true};

Result<kube::Resource> native_served(const std::string& group, const std::string&, const std::string& kind) {
  if (group == "scheduling.k8s.io" && kind == "PodGroup") return kNativePodGroups;
  if (group == "scheduling.k8s.io" && kind == "Workload") return kNativeWorkloads;
  return Error{"not served", ErrorCode::NotFound};
}

std::unique_ptr<policy::StateStore> every_kind_under(const std::string& profile) {
  return test::state_with_policy(
      test::policy_with_rules("- name: all\n  namespaces: [\"*\"]\n  kinds: [\"*\"]\n  profile: " + profile +
                              "\n  queue: {value: q1}\n"),
      "pod-groups-" + profile + ".yaml");
}

Result<DesiredPodGroups> plan_for(const policy::StateStore& store, const std::string& workload_json,
                                  const kube::FindResource& find = volcano_served) {
  simdjson::dom::parser parser;
  simdjson::dom::element workload = parser.parse(workload_json).value();
  return plan_pod_groups(store.current(), workload, find);
}

// The desired object at `place`, parsed.
struct Desired {
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  Desired(const DesiredPodGroups& desired, const std::string& collection, const std::string& name) {
    auto it = desired.bodies.find({collection, name});
    REQUIRE(it != desired.bodies.end());
    object = parser.parse(it->second).value();
  }
  int64_t number(const char* pointer) const { return object.at_pointer(pointer).get_int64().value(); }
  std::string text(const char* pointer) const { return std::string(test::string_at(object, pointer)); }
};

// A workload of the corpus as admission left it under `profile`, with `edit` (a JSON merge of metadata and spec
// fields, as jq's `*` merges) made first: the hand-off cases below differ from a corpus object by one field.
std::string admitted_with(const std::string& corpus_path, const std::string& profile, const std::string& jq_edit) {
  const std::string admitted = test::admitted_workload(corpus_path, profile);
  auto edit = expr::PathExpression::compile(jq_edit);
  REQUIRE(edit);
  simdjson::dom::parser parser;
  json::ObjectDocument doc(parser.parse(admitted).value());
  const json::EvalResult r = edit->evaluate(doc, false);
  REQUIRE(r.ok());
  REQUIRE(r.values.size() == 1);
  return r.values.front().json();
}

}  // namespace

TEST_CASE("PodGroups: only the kinds that some rule's profile makes PodGroups for are watched") {
  auto volcano = every_kind_under("volcano");
  const auto wanted = kinds_needing_pod_groups(volcano->current());
  CHECK(wanted.count("jobset.x-k8s.io/JobSet"));
  CHECK(wanted.count("kubeflow.org/PyTorchJob"));
  // KubeRay makes its own Volcano PodGroups (the profile's override writes none): no watch of Ray kinds.
  CHECK_FALSE(wanted.count("ray.io/RayCluster"));
  // KAI's podgrouper makes KAI's: the kai profile writes none at all.
  CHECK(kinds_needing_pod_groups(every_kind_under("kai")->current()).empty());
}

TEST_CASE("PodGroups: a JobSet under volcano gets one PodGroup of its gang, owned by it and found by its uid") {
  auto store = every_kind_under("volcano");
  const auto desired = plan_for(*store, test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  REQUIRE(desired);
  REQUIRE(desired->bodies.size() == 1);
  const auto& [place, body] = *desired->bodies.begin();
  CHECK(place.first == "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups");
  CHECK(place.second == "paralleljobs");  // as admission names it on the pods: the workload's name
  simdjson::dom::parser parser;
  const auto object = parser.parse(body).value();
  CHECK(object.at_pointer("/spec/minMember").get_int64().value() ==
        5);  // = `inspect --profile volcano`: 4 workers and the driver
  CHECK(test::string_at(object, "/spec/queue") == "q1");
  CHECK(test::string_at(object, "/metadata/ownerReferences/0/kind") == "JobSet");
  CHECK(test::string_at(object, "/metadata/ownerReferences/0/uid") == "uid-1");
  CHECK(test::string_at(object, "/metadata/labels/workload-map.io~1owner-uid") == "uid-1");
  CHECK(desired->resources.count(place.first));
}

TEST_CASE("PodGroups: a kind whose operator makes its own gets none, and a gone profile or kind is nothing to do") {
  auto store = every_kind_under("volcano");
  const auto ray = plan_for(*store, test::admitted_workload("raycluster/ray-cluster.complete.yaml", "volcano"));
  REQUIRE(ray);
  CHECK(ray->bodies.empty());  // and any it has are deleted
  const auto gone = plan_for(*store, test::admitted_workload("jobset/paralleljobs.yaml", "slurm"));
  REQUIRE_FALSE(gone);
  CHECK(gone.code() == ErrorCode::Invalid);  // no retry: it changes only when the workload or policy does
}

constexpr const char* kNativeCollection = "/apis/scheduling.k8s.io/v1beta1/namespaces/team-a/";

TEST_CASE("PodGroups: under native, a JobSet gets a Workload of its gang and a PodGroup made from its template") {
  auto store = every_kind_under("native");
  CHECK(kinds_needing_pod_groups(store->current()).count("jobset.x-k8s.io/JobSet"));
  const auto desired = plan_for(*store, test::admitted_workload("jobset/paralleljobs.yaml", "native"), native_served);
  REQUIRE(desired);
  REQUIRE(desired->bodies.size() == 2);
  CHECK(desired->no_workload.empty());
  const std::string workloads = std::string(kNativeCollection) + "workloads";
  REQUIRE(desired->workload);
  CHECK(*desired->workload == PodGroupPlace{workloads, "paralleljobs"});
  const Desired workload(*desired, workloads, "paralleljobs");
  CHECK(workload.text("/apiVersion") == "scheduling.k8s.io/v1beta1");
  CHECK(workload.text("/spec/controllerRef/apiGroup") == "jobset.x-k8s.io");
  CHECK(workload.text("/spec/controllerRef/kind") == "JobSet");
  CHECK(workload.text("/spec/controllerRef/name") == "paralleljobs");
  CHECK(workload.object.at_pointer("/spec/podGroupTemplates").get_array().size() == 1);
  const std::string gang = workload.text("/spec/podGroupTemplates/0/name");
  CHECK_FALSE(gang.empty());
  CHECK(workload.number("/spec/podGroupTemplates/0/schedulingPolicy/gang/minCount") == 5);
  CHECK(workload.text("/metadata/ownerReferences/0/kind") == "JobSet");  // collected with it
  CHECK(workload.text("/metadata/labels/workload-map.io~1owner-uid") == "uid-1");
  const Desired group(*desired, std::string(kNativeCollection) + "podgroups", "paralleljobs");
  CHECK(group.text("/spec/workloadRef/workloadName") == "paralleljobs");
  CHECK(group.text("/spec/workloadRef/templateName") == gang);
  CHECK(group.number("/spec/schedulingPolicy/gang/minCount") == 5);
  // The Workload goes first: the PodGroups name one that exists.
  const PodGroupWrites writes = plan_pod_group_writes(*desired, {});
  REQUIRE(writes.apply.size() == 2);
  CHECK(writes.apply.front().first == *desired->workload);
}

TEST_CASE("PodGroups: under native, a LeaderWorkerSet's groups share one template of its Workload, a PodGroup each") {
  auto store = every_kind_under("native");
  const auto desired =
      plan_for(*store, test::admitted_workload("leaderworkerset/sample-lws.yaml", "native"), native_served);
  REQUIRE(desired);
  const Desired workload(*desired, std::string(kNativeCollection) + "workloads", "leaderworkerset-sample");
  REQUIRE(workload.object.at_pointer("/spec/podGroupTemplates").get_array().size() == 1);
  CHECK(workload.number("/spec/podGroupTemplates/0/schedulingPolicy/gang/minCount") == 4);
  CHECK(workload.text("/spec/controllerRef/kind") == "LeaderWorkerSet");
  for (int g = 0; g < 3; ++g) {
    const std::string name =
        "leaderworkerset-sample-" + workload.text("/spec/podGroupTemplates/0/name") + "-" + std::to_string(g);
    const Desired group(*desired, std::string(kNativeCollection) + "podgroups", name);
    CHECK(group.text("/spec/workloadRef/workloadName") == "leaderworkerset-sample");
    CHECK(group.text("/spec/workloadRef/templateName") == workload.text("/spec/podGroupTemplates/0/name"));
    CHECK(group.number("/spec/schedulingPolicy/gang/minCount") == 4);
  }
  CHECK(desired->bodies.size() == 4);
}

TEST_CASE("PodGroups: under native, a Job asking the Job controller for its gang and KubeRay's own are handed off") {
  auto store = every_kind_under("native");
  const std::string job = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi","namespace":"team-a",)"
                          R"("uid":"uid-2","labels":{"workload-map.io/profile":"native"}},"spec":{"parallelism":2,)"
                          R"("completions":2,SCHEDULING"template":{"spec":{"restartPolicy":"Never","containers":[)"
                          R"({"name":"pi","image":"perl"}]}}}})";
  auto with = [&](const std::string& scheduling) {
    std::string out = job;
    out.replace(out.find("SCHEDULING"), 10, scheduling);
    return out;
  };
  const auto ours = plan_for(*store, with(""), native_served);
  REQUIRE(ours);
  CHECK(ours->bodies.size() == 2);  // a Workload and a PodGroup of 2
  const auto handed_off =
      plan_for(*store, with(R"("scheduling":{"schedulingPolicy":{"gang":{"minCount":2}}},)"), native_served);
  REQUIRE(handed_off);
  CHECK(handed_off->bodies.empty());  // the Job controller makes them (WorkloadWithJob)
  // The Job as admission left it, its template naming workload-map's gang (podSchedulingGroup): still ours. Whether a
  // template brought its own PodGroup (whenPodSpecHas) is admission's decision, on the object as it was sent; the
  // bed found this plan taking the root Job's own edit for the user's.
  std::string admitted = with("");
  admitted.replace(admitted.find(R"("restartPolicy")"), 0, R"("schedulingGroup":{"podGroupName":"pi"},)");
  const auto still_ours = plan_for(*store, admitted, native_served);
  REQUIRE(still_ours);
  CHECK(still_ours->bodies.size() == 2);

  const auto ray =
      plan_for(*store, test::admitted_workload("raycluster/ray-cluster.complete.yaml", "native"), native_served);
  REQUIRE(ray);
  CHECK(ray->bodies.size() == 2);
  // Counted as KubeRay's own native integration counts it (kubernetes-was: 1 + the desired workers), as under Volcano:
  // 1 head and 4 desired workers here, where KAI's rule (the head and minReplicas) says 3.
  const std::string four_workers =
      R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"ray","namespace":"team-a","uid":"uid-3",)"
      R"("labels":{"workload-map.io/profile":"native"}},"spec":{"headGroupSpec":{"rayStartParams":{},"template":)"
      R"({"spec":{"containers":[{"name":"head","image":"ray"}]}}},"workerGroupSpecs":[{"groupName":"gpu",)"
      R"("replicas":4,"minReplicas":2,"maxReplicas":4,"rayStartParams":{},"template":{"spec":{"containers":[)"
      R"({"name":"worker","image":"ray"}]}}}]}})";
  const auto desired_workers = plan_for(*store, four_workers, native_served);
  REQUIRE(desired_workers);
  const Desired ray_group(*desired_workers, std::string(kNativeCollection) + "podgroups", "ray");
  CHECK(ray_group.number("/spec/schedulingPolicy/gang/minCount") == 5);
  const auto kuberay = plan_for(*store,
                                admitted_with("raycluster/ray-cluster.complete.yaml", "native",
                                              R"(.metadata.labels["ray.io/gang-scheduling-enabled"] = "True")"),
                                native_served);
  REQUIRE(kuberay);
  CHECK(kuberay->bodies.empty());  // KubeRay's kubernetes-was batch scheduler makes them
  // KubeRay leaves an autoscaled RayCluster to default scheduling: the profile's gang then stands.
  const auto autoscaled = plan_for(*store,
                                   admitted_with("raycluster/ray-cluster.complete.yaml", "native",
                                                 R"(.metadata.labels["ray.io/gang-scheduling-enabled"] = "true" | )"
                                                 R"(.spec.enableInTreeAutoscaling = true)"),
                                   native_served);
  REQUIRE(autoscaled);
  CHECK(autoscaled->bodies.size() == 2);
}

TEST_CASE("PodGroups: a PodGroup kind not served yet is retried, not dropped") {
  auto store = every_kind_under("volcano");
  simdjson::dom::parser parser;
  const std::string workload = test::admitted_workload("jobset/paralleljobs.yaml", "volcano");
  const auto desired = plan_pod_groups(
      store->current(), parser.parse(workload).value(),
      [](const std::string&, const std::string&, const std::string&) -> Result<kube::Resource> {
        return Error{"/apis/scheduling.volcano.sh/v1beta1 serves no kind PodGroup", ErrorCode::NotFound};
      });
  REQUIRE_FALSE(desired);
  CHECK(retryable(desired.code()));
  CHECK(desired.error().find("serves no kind PodGroup") != std::string::npos);
}

TEST_CASE("PodGroups: the writes apply what differs and delete what is no longer desired") {
  DesiredPodGroups desired;
  desired.bodies[{"/p", "a"}] = "A2";
  desired.bodies[{"/p", "b"}] = "B";
  const std::map<PodGroupPlace, std::string> applied{{{"/p", "a"}, "A1"}, {{"/p", "b"}, "B"}, {{"/p", "c"}, ""}};
  const PodGroupWrites writes = plan_pod_group_writes(desired, applied);
  REQUIRE(writes.apply.size() == 1);
  CHECK(writes.apply[0].first.second == "a");
  CHECK(*writes.apply[0].second == "A2");
  REQUIRE(writes.remove.size() == 1);
  CHECK(writes.remove[0].second == "c");
  CHECK(plan_pod_group_writes(desired, {{{"/p", "a"}, "A2"}, {{"/p", "b"}, "B"}}).apply.empty());
}

TEST_CASE("PodGroups: the controller applies the plan, adopts what a previous leader made, and deletes the rest") {
  test::FakeCluster cluster(every_kind_under("volcano"));
  cluster.api.answer("GET", "/apis/scheduling.volcano.sh/v1beta1", 200,
                     test::discovery_document("PodGroup", "podgroups"));
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  // A previous leader made a PodGroup for a gang the JobSet no longer has.
  cluster.api.answer("GET", collection + "?labelSelector=", 200, R"({"items":[{"metadata":{"name":"stale"}}]})");
  cluster.api.answer("PATCH", collection + "/", 201);
  cluster.api.answer("DELETE", collection + "/", 200);
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  REQUIRE(controller.reconcile_one(key));
  const auto applies = cluster.api.calls("PATCH", collection);
  REQUIRE(applies.size() == 1);
  CHECK(applies[0].target == collection + "/paralleljobs?fieldManager=workload-map&force=true");
  CHECK(applies[0].content_type == kube::kApplyPatch);
  const auto deletes = cluster.api.calls("DELETE", collection);
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].target == collection + "/stale");
  // Nothing changed: nothing is written again.
  REQUIRE(controller.reconcile_one(key));
  CHECK(cluster.api.calls("PATCH", collection).size() == 1);
}

TEST_CASE("PodGroups: a write the API server fails or refuses is retried") {
  test::FakeCluster cluster(every_kind_under("volcano"));
  cluster.api.answer("GET", "/apis/scheduling.volcano.sh/v1beta1", 200,
                     test::discovery_document("PodGroup", "podgroups"));
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  cluster.api.answer("PATCH", collection + "/", 503, R"({"message":"etcd is down"})");
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  auto outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(outcome.code() == ErrorCode::Unavailable);
  CHECK(outcome.error().find("etcd is down") != std::string::npos);
  cluster.api.answer("PATCH", collection + "/", 422, R"({"message":"spec.minMember: Invalid value"})");
  outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(retryable(outcome.code()));  // a refusal may pass once the CRD or the policy changes
  cluster.api.answer("PATCH", collection + "/", 200);
  cluster.api.answer("GET", collection + "?labelSelector=", 200, R"({"items":[]})");
  CHECK(controller.reconcile_one(key));
  // A deleted workload: nothing is asked of the API server (its PodGroups go with it through their owner).
  auto pod_group_calls = [&] {
    size_t n = 0;
    for (const auto& call : cluster.api.calls()) n += call.target.rfind(collection, 0) == 0;
    return n;
  };
  const size_t calls = pod_group_calls();
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Deleted,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  CHECK(controller.reconcile_one(key));
  CHECK(pod_group_calls() == calls);
}

// One object the API server refuses (an immutable field an earlier version set) does not hold back the workload's
// others; an API server that fails stops the round at once. Both are retried.
TEST_CASE("PodGroups: a refused object does not hold back the others, a failing API server stops the round") {
  test::FakeCluster cluster(every_kind_under("native"));
  cluster.api.answer("GET", "/apis/scheduling.k8s.io/v1beta1", 200,
                     R"({"resources":[)"
                     R"({"name":"podgroups","kind":"PodGroup","namespaced":true},)"
                     R"({"name":"workloads","kind":"Workload","namespaced":true}]})");
  const std::string collection = std::string(kNativeCollection);
  cluster.api.answer("PATCH", collection + "workloads/", 422, R"({"message":"spec.podGroupTemplates: immutable"})");
  cluster.api.answer("PATCH", collection + "podgroups/", 200);
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "native"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  auto outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(retryable(outcome.code()));
  CHECK(outcome.error().find("workload/paralleljobs") != std::string::npos);
  CHECK(cluster.api.calls("PATCH", collection + "workloads/").size() == 1);  // the Workload first
  CHECK(cluster.api.calls("PATCH", collection + "podgroups/").size() == 1);  // and the PodGroup all the same

  cluster.api.answer("PATCH", collection, 503, R"({"message":"etcd is down"})");
  outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(outcome.code() == ErrorCode::Unavailable);
  CHECK(cluster.api.calls("PATCH", collection + "workloads/").size() == 2);
  CHECK(cluster.api.calls("PATCH", collection + "podgroups/").size() == 1);  // not tried: the next would fail too
}

}  // namespace wm::controllers
