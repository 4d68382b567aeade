// The PodGroup controller without an API server: what it decides (controllers/pod_group_plan.h) over the corpus's
// real manifests and the shipped profiles, and what it then does with a fake API server's answers.
#include "controllers/pod_groups.h"

#include <catch2/catch.hpp>
#include <set>

#include "controllers/pod_group_plan.h"
#include "mapper/expr/path_expression.h"
#include "tests/support/result_matchers.h"
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

Result<kube::Resource> none_served(const std::string& group, const std::string& version, const std::string& kind) {
  return Error{"/apis/" + group + "/" + version + " serves no kind " + kind, ErrorCode::NotFound};
}

// Each profile's own: the kinds the API server serves it, where its PodGroups go and where they hold their minimum.
struct ProfileKinds {
  kube::FindResource find;
  std::string pod_groups;
  const char* minimum;
};
ProfileKinds kinds_of(const std::string& profile) {
  if (profile == "native")
    return {native_served, "/apis/scheduling.k8s.io/v1beta1/namespaces/team-a/podgroups",
            "/spec/schedulingPolicy/gang/minCount"};
  return {volcano_served, "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups", "/spec/minMember"};
}

const policy::StateStore& every_kind_under_once(const std::string& profile) {
  static std::map<std::string, std::unique_ptr<policy::StateStore>> stores;
  auto& store = stores[profile];
  if (!store) store = every_kind_under(profile);
  return *store;
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

// `json` with `jq_edit` made (a jq assignment, as `.spec.x = 1 | .metadata.y = "z"`): the cases below differ from a
// corpus object by a field or two.
std::string edited(const std::string& json, const std::string& jq_edit) {
  if (jq_edit.empty()) return json;
  auto edit = expr::PathExpression::compile(jq_edit);
  REQUIRE_THAT(edit, test::IsOk());
  simdjson::dom::parser parser;
  json::ObjectDocument doc(parser.parse(json).value());
  const json::EvalResult r = edit->evaluate(doc, false);
  REQUIRE(r.ok());
  REQUIRE(r.values.size() == 1);
  return r.values.front().json();
}

// A Job of 2 pods as admission left it under native, for the hand-off cases.
constexpr const char* kPiJob =
    R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi","namespace":"team-a","uid":"uid-2",)"
    R"("labels":{"workload-map.io/profile":"native"}},"spec":{"parallelism":2,"completions":2,"template":{"spec":)"
    R"({"restartPolicy":"Never","containers":[{"name":"pi","image":"perl"}]}}}})";

// A RayCluster of 4 desired GPU workers, minReplicas 2, as admission left it under native.
constexpr const char* kFourWorkerRay =
    R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"ray","namespace":"team-a","uid":"uid-3",)"
    R"("labels":{"workload-map.io/profile":"native"}},"spec":{"headGroupSpec":{"rayStartParams":{},"template":)"
    R"({"spec":{"containers":[{"name":"head","image":"ray"}]}}},"workerGroupSpecs":[{"groupName":"gpu",)"
    R"("replicas":4,"minReplicas":2,"maxReplicas":4,"rayStartParams":{},"template":{"spec":{"containers":[)"
    R"({"name":"worker","image":"ray"}]}}}]}})";

// A Workflow from a WorkflowTemplate that the cluster side does not hold (yet), as admission left it under native.
constexpr const char* kWorkflowFromUnknownTemplate =
    R"({"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow","metadata":{"name":"wf","namespace":"team-a",)"
    R"("uid":"uid-4","labels":{"workload-map.io/profile":"native"}},"spec":{"workflowTemplateRef":{"name":"later"}}})";

// One workload's plan: the workload, the policy's profile (every rule's), and what the plan holds for it.
struct PlanCase {
  const char* what;
  const char* profile;
  const char* workload;       // a corpus path, admitted under `labelled`; or a workload's JSON as admission left it
  const char* edit = "";      // a jq edit made to it first
  const char* labelled = "";  // the profile admission labelled it with, when not `profile`
  bool served = true;         // whether the API server serves the profile's kinds
  // What the plan holds: a failure, or so many objects (Workloads and PodGroups), the PodGroup `gang`'s of `minimum`.
  std::optional<ErrorCode> fails = std::nullopt;
  const char* error = "";
  size_t objects = 0;
  const char* gang = "";
  int64_t minimum = 0;
  const char* waits = "";  // the plan waits for a referenced object (waits_for), said so
};

const PlanCase kPlanCases[] = {
    {.what = "a JobSet under volcano: one PodGroup, its minMember as `inspect --profile volcano` says (4 workers "
             "and the driver)",
     .profile = "volcano",
     .workload = "jobset/paralleljobs.yaml",
     .objects = 1,
     .gang = "paralleljobs",
     .minimum = 5},
    {.what = "a RayCluster under volcano: none, KubeRay makes its own (and any it has are deleted)",
     .profile = "volcano",
     .workload = "raycluster/ray-cluster.complete.yaml",
     .objects = 0},
    {.what = "a profile the policy no longer has: nothing to do, no retry (it changes only when the workload or "
             "policy does)",
     .profile = "volcano",
     .workload = "jobset/paralleljobs.yaml",
     .labelled = "slurm",
     .fails = ErrorCode::Invalid,
     .error = "(slurm) is no longer known"},
    {.what = "a PodGroup kind not served yet: retried, not dropped",
     .profile = "volcano",
     .workload = "jobset/paralleljobs.yaml",
     .served = false,
     .fails = ErrorCode::NotFound,
     .error = "serves no kind PodGroup"},
    {.what = "a JobSet under native: a Workload of its gang and a PodGroup made from its template",
     .profile = "native",
     .workload = "jobset/paralleljobs.yaml",
     .objects = 2,
     .gang = "paralleljobs",
     .minimum = 5},
    {.what = "a LeaderWorkerSet under native: a Workload and a PodGroup per group (3)",
     .profile = "native",
     .workload = "leaderworkerset/sample-lws.yaml",
     .objects = 4},
    {.what = "a Workflow whose WorkflowTemplate is not held: no gang of 0 pods; it waits for the template",
     .profile = "native",
     .workload = kWorkflowFromUnknownTemplate,
     .objects = 0,
     .waits = "WorkflowTemplate team-a/later (argoproj.io) is not known"},
    {.what = "a Job under native: a Workload and a PodGroup", .profile = "native", .workload = kPiJob, .objects = 2},
    {.what = "a Job asking the Job controller for its gang (spec.scheduling): handed off, the Job controller makes "
             "them (WorkloadWithJob)",
     .profile = "native",
     .workload = kPiJob,
     .edit = R"(.spec.scheduling = {"schedulingPolicy":{"gang":{"minCount":2}}})",
     .objects = 0},
    // Whether a template brought its own PodGroup (whenPodSpecHas) is admission's decision, on the object as it was
    // sent; the bed found this plan taking the root Job's own edit for the user's.
    {.what = "a Job as admission left it, its template naming workload-map's gang (podSchedulingGroup): still ours",
     .profile = "native",
     .workload = kPiJob,
     .edit = R"(.spec.template.spec.schedulingGroup = {"podGroupName":"pi"})",
     .objects = 2},
    {.what = "a RayCluster under native: a Workload and a PodGroup, as KubeRay's own native integration would",
     .profile = "native",
     .workload = "raycluster/ray-cluster.complete.yaml",
     .objects = 2},
    // kubernetes-was: 1 + the desired workers, as under Volcano, where KAI's rule (the head and minReplicas) says 3.
    {.what = "a RayCluster of 4 desired workers, minReplicas 2, under native: counted as KubeRay counts it, 1 + 4",
     .profile = "native",
     .workload = kFourWorkerRay,
     .objects = 2,
     .gang = "ray",
     .minimum = 5},
    {.what = "a RayCluster with KubeRay's gang scheduling on: handed off to KubeRay's kubernetes-was batch scheduler",
     .profile = "native",
     .workload = "raycluster/ray-cluster.complete.yaml",
     .edit = R"(.metadata.labels["ray.io/gang-scheduling-enabled"] = "True")",
     .objects = 0},
    {.what = "an autoscaled RayCluster with KubeRay's gang scheduling on: KubeRay leaves it to default scheduling, "
             "the profile's gang stands",
     .profile = "native",
     .workload = "raycluster/ray-cluster.complete.yaml",
     .edit = R"(.metadata.labels["ray.io/gang-scheduling-enabled"] = "true" | .spec.enableInTreeAutoscaling = true)",
     .objects = 2},
};

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
  CHECK(kinds_needing_pod_groups(every_kind_under("native")->current()).count("jobset.x-k8s.io/JobSet"));
}

TEST_CASE("PodGroups: the plan for each workload under its profile") {
  for (const PlanCase& row : kPlanCases) {
    DYNAMIC_SECTION(row.what) {
      const ProfileKinds kinds = kinds_of(row.profile);
      const std::string labelled = *row.labelled ? row.labelled : row.profile;
      const std::string workload =
          *row.workload == '{' ? row.workload : test::admitted_workload(row.workload, labelled);
      const auto plan = plan_for(every_kind_under_once(row.profile), edited(workload, row.edit),
                                 row.served ? kinds.find : none_served);
      if (row.fails) {
        CHECK_THAT(plan, test::FailsWith(*row.fails, row.error));
      } else {
        REQUIRE_THAT(plan, test::IsOk());
        CHECK(plan->bodies.size() == row.objects);
        if (*row.waits)
          CHECK_THAT(plan->waits_for, Catch::Contains(row.waits));
        else
          CHECK(plan->waits_for.empty());
        if (*row.gang) CHECK(Desired(*plan, kinds.pod_groups, row.gang).number(kinds.minimum) == row.minimum);
      }
    }
  }
}

TEST_CASE("PodGroups: a JobSet's PodGroup under volcano is named as its pods name it, owned by it, found by its uid") {
  const auto desired =
      plan_for(every_kind_under_once("volcano"), test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  REQUIRE_THAT(desired, test::IsOk());
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  // As admission names it on the pods: the workload's name.
  const Desired group(*desired, collection, "paralleljobs");
  CHECK(group.text("/spec/queue") == "q1");
  CHECK(group.text("/metadata/ownerReferences/0/kind") == "JobSet");
  CHECK(group.text("/metadata/ownerReferences/0/uid") == "uid-1");
  CHECK(group.text("/metadata/labels/workload-map.io~1owner-uid") == "uid-1");
  CHECK(desired->resources.count(collection));
}

constexpr const char* kNativeCollection = "/apis/scheduling.k8s.io/v1beta1/namespaces/team-a/";

TEST_CASE("PodGroups: under native, a JobSet's Workload holds its gang, and its PodGroup is made from the template") {
  const auto desired = plan_for(every_kind_under_once("native"),
                                test::admitted_workload("jobset/paralleljobs.yaml", "native"), native_served);
  REQUIRE_THAT(desired, test::IsOk());
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
  // The Workload goes first: the PodGroups name one that exists.
  const PodGroupWrites writes = plan_pod_group_writes(*desired, {});
  REQUIRE(writes.apply.size() == 2);
  CHECK(writes.apply.front().first == *desired->workload);
}

TEST_CASE("PodGroups: under native, a LeaderWorkerSet's groups share one template of its Workload, a PodGroup each") {
  const auto desired = plan_for(every_kind_under_once("native"),
                                test::admitted_workload("leaderworkerset/sample-lws.yaml", "native"), native_served);
  REQUIRE_THAT(desired, test::IsOk());
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

TEST_CASE("PodGroups: the controller applies the plan over what a previous leader made, and deletes the rest") {
  test::FakeCluster cluster(every_kind_under("volcano"));
  cluster.api.answer("GET", "/apis/scheduling.volcano.sh/v1beta1", 200,
                     test::discovery_document("PodGroup", "podgroups"));
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  auto pod_group = [](const std::string& name, const std::string& labels, int min_member) {
    return R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":")" + name +
           R"(","namespace":"team-a","labels":{)" + labels + R"(}},"spec":{"minMember":)" + std::to_string(min_member) +
           "}}";
  };
  const std::string ours = R"("workload-map.io/owner-uid":"uid-1")";
  // A previous leader made the JobSet's PodGroup (someone has since edited it by hand) and one for a gang the JobSet
  // no longer has; a PodGroup not labelled as this controller's is someone else's.
  cluster.api.hold(collection, {{"paralleljobs", pod_group("paralleljobs", ours, 1)},
                                {"stale", pod_group("stale", ours, 2)},
                                {"theirs", pod_group("theirs", R"("team":"a")", 3)}});
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  REQUIRE_THAT(controller.reconcile_one(key), test::IsOk());
  const auto after = cluster.api.objects(collection);
  std::set<std::string> names;
  for (const auto& [name, object] : after) names.insert(name);
  CHECK(names == std::set<std::string>{"paralleljobs", "theirs"});
  // The JobSet's PodGroup is the plan's, applied server-side by workload-map (forced: the edit is taken back).
  const auto desired = plan_for(*cluster.state, test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  REQUIRE_THAT(desired, test::IsOk());
  const auto& applied = after.at("paralleljobs");
  CHECK(applied.body == desired->bodies.at({collection, "paralleljobs"}));
  CHECK(applied.field_manager == "workload-map");
  CHECK(after.at("theirs").body == pod_group("theirs", R"("team":"a")", 3));  // untouched
  // Nothing changed: nothing is written again.
  REQUIRE_THAT(controller.reconcile_one(key), test::IsOk());
  CHECK(cluster.api.objects(collection) == after);
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
  REQUIRE_THAT(outcome, test::FailsWith(ErrorCode::Unavailable, "etcd is down"));
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

namespace {

// Discovery of scheduling.k8s.io/v1beta1 as an API server with GenericWorkload serves it: PodGroups and Workloads.
void serve_native_kinds(test::FakeApi& api) {
  api.answer("GET", "/apis/scheduling.k8s.io/v1beta1", 200,
             R"({"resources":[)"
             R"({"name":"podgroups","kind":"PodGroup","namespaced":true},)"
             R"({"name":"workloads","kind":"Workload","namespaced":true}]})");
}

}  // namespace

// One object the API server refuses (an immutable field an earlier version set) does not hold back the workload's
// others; an API server that fails stops the round at once. Both are retried.
TEST_CASE("PodGroups: a refused object does not hold back the others, a failing API server stops the round") {
  test::FakeCluster cluster(every_kind_under("native"));
  serve_native_kinds(cluster.api);
  const std::string collection = std::string(kNativeCollection);
  cluster.api.answer("PATCH", collection + "workloads/", 422, R"({"message":"spec.podGroupTemplates: immutable"})");
  cluster.api.answer("PATCH", collection + "podgroups/", 200);
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "native"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  auto outcome = controller.reconcile_one(key);
  REQUIRE_THAT(outcome, test::FailsWith(ErrorCode::Unavailable, "workload/paralleljobs"));  // retried
  CHECK(cluster.api.calls("PATCH", collection + "workloads/").size() == 1);                 // the Workload first
  CHECK(cluster.api.calls("PATCH", collection + "podgroups/").size() == 1);  // and the PodGroup all the same

  cluster.api.answer("PATCH", collection, 503, R"({"message":"etcd is down"})");
  outcome = controller.reconcile_one(key);
  REQUIRE_THAT(outcome, test::FailsWith(ErrorCode::Unavailable, ""));
  CHECK(cluster.api.calls("PATCH", collection + "workloads/").size() == 2);
  CHECK(cluster.api.calls("PATCH", collection + "podgroups/").size() == 1);  // not tried: the next would fail too
}

// A Workflow admitted before the cluster side held its WorkflowTemplate: no PodGroup (its gang is not known), nothing
// written; once the template is held, the same workload gets its gang.
TEST_CASE("PodGroups: a workload whose pods are in an object not held yet waits for it, then gets its gang") {
  test::FakeCluster cluster(every_kind_under("native"));
  serve_native_kinds(cluster.api);
  const std::string podgroups = std::string(kNativeCollection) + "podgroups";
  cluster.api.hold(podgroups);
  cluster.api.hold(std::string(kNativeCollection) + "workloads");
  PodGroupController controller(cluster.context());
  controller.changed("argoproj.io/Workflow", kube::EventType::Added, kWorkflowFromUnknownTemplate);
  const std::string key = "argoproj.io/Workflow|team-a/wf";
  REQUIRE_THAT(controller.reconcile_one(key), test::IsOk());
  CHECK(cluster.api.calls("PATCH").empty());
  REQUIRE(cluster.state->references().put(
      R"({"apiVersion":"argoproj.io/v1alpha1","kind":"WorkflowTemplate","metadata":{"name":"later",)"
      R"("namespace":"team-a"},"spec":{"entrypoint":"main","templates":[{"name":"main","container":{"image":"x"}}]}})"));
  controller.references_changed();
  REQUIRE_THAT(controller.reconcile_one(key), test::IsOk());
  const auto made = cluster.api.objects(podgroups);
  REQUIRE(made.size() == 1);
  simdjson::dom::parser parser;
  int64_t min_count = 0;
  CHECK(parser.parse(made.begin()->second.body).at_pointer("/spec/schedulingPolicy/gang/minCount").get(min_count) ==
        simdjson::SUCCESS);
  CHECK(min_count == 1);
}

}  // namespace wm::controllers
