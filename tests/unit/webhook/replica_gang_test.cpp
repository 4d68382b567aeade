// Gangs repeated per replica, through review() in memory: the workload's admission writes one name on the pod
// templates its copies share, and each pod's admission finishes it with the pod's replica key, so that a scheduler
// that gangs by name (coscheduling, YuniKorn) sees one gang per LeaderWorkerSet group.
#include "webhook/replica_gang.h"

#include <catch2/catch.hpp>

#include "base/json/json_writer.h"
#include "mapper/expr/json_patch_apply.h"
#include "mapper/view/gangs.h"
#include "mapper/view/workload_view.h"
#include "policy/gang_values.h"
#include "policy/policy.h"
#include "policy/profile_choice.h"
#include "tests/support/result_matchers.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "webhook/admission.h"

namespace wm {
namespace {

const char* kServe = R"(
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve, namespace: ml}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 4
    workerTemplate:
      metadata: {labels: {app: serve}}
      spec:
        containers: [{name: vllm, image: vllm, resources: {limits: {nvidia.com/gpu: 2}}}]
)";

struct Admitted {
  webhook::AdmissionResult result;
  std::string object;  // the object with the patch applied
};

class Admission {
 public:
  explicit Admission(const std::string& profile) {
    yaml::Diagnostics errors;
    auto policy =
        policy::Policy::load(test::policy_with_rules("- name: all\n  profile: " + profile + "\n  queue: {value: q1}\n"),
                             "policy.yaml", errors);
    REQUIRE(policy);
    state_.policy = std::make_shared<const policy::Policy>(std::move(*policy));
    state_.catalog = std::shared_ptr<const catalog::Catalog>(&test::builtin_catalog(), [](const catalog::Catalog*) {});
  }

  Admitted mutate(const std::string& object_json, const std::string& operation = "CREATE") {
    Admitted out;
    out.result = webhook::review(webhook::Endpoint::Mutate, test::admission_review(object_json, "ml", operation),
                                 state_, parser_);
    simdjson::dom::parser answer_parser;
    simdjson::dom::element answer;
    REQUIRE(answer_parser.parse(out.result.body).get(answer) == simdjson::SUCCESS);
    std::string_view patch;
    out.object = object_json;
    if (answer.at_pointer("/response/patch").get_string().get(patch) == simdjson::SUCCESS) {
      auto patched = expr::apply_json_patch(object_json, test::base64_decode(std::string(patch)));
      REQUIRE_THAT(patched, test::IsOk());
      out.object = std::move(*patched);
    }
    return out;
  }

  const policy::AdmissionState& state() const { return state_; }

 private:
  policy::AdmissionState state_;
  simdjson::dom::parser parser_;
};

std::string json_of(const std::string& yaml) { return json::element_json(test::parse_yaml(yaml).front().root); }

// The pod LWS makes from the shared template for group `group`: the template's metadata, LWS's labels, owned by its
// StatefulSet.
std::string pod_of(const std::string& lws_json, int group, bool owned_by_pod = false) {
  test::ParsedObject lws = test::parse_json(lws_json);
  simdjson::dom::element metadata;
  REQUIRE(lws.root.at_pointer("/spec/leaderWorkerTemplate/workerTemplate/metadata").get(metadata) == simdjson::SUCCESS);
  std::string pod = json::element_json(metadata);
  pod.pop_back();  // reopen the metadata object
  const std::string owner =
      owned_by_pod ? R"({"apiVersion":"v1","kind":"Pod","name":"serve-1","uid":"p1"})"
                   : R"({"apiVersion":"apps/v1","kind":"StatefulSet","name":"serve","uid":"s1","controller":true})";
  std::string labels = R"("leaderworkerset.sigs.k8s.io/name":"serve")";
  if (group >= 0) labels += R"(,"leaderworkerset.sigs.k8s.io/group-index":")" + std::to_string(group) + "\"";
  // The template's labels map is merged with LWS's by hand: replace its opening brace.
  const size_t at = pod.find(R"("labels":{)");
  REQUIRE(at != std::string::npos);
  pod.insert(at + 10, labels + ",");
  return R"({"apiVersion":"v1","kind":"Pod","metadata":)" + pod + R"(,"name":"serve-)" + std::to_string(group) +
         R"(","namespace":"ml","ownerReferences":[)" + owner +
         R"(]},"spec":{"containers":[{"name":"vllm","image":"vllm"}]}})";
}

std::string value_at(const std::string& json, const std::string& pointer) {
  return test::string_at(test::parse_json(json).root, pointer);
}

int64_t number_at(simdjson::dom::element root, const std::string& pointer) {
  int64_t n = -1;
  return root.at_pointer(pointer).get_int64().get(n) == simdjson::SUCCESS ? n : -1;
}

}  // namespace

TEST_CASE("a LeaderWorkerSet under coscheduling: each group's pods name a gang and a PodGroup of their own") {
  Admission admission("coscheduling");
  const Admitted lws = admission.mutate(json_of(kServe));
  CHECK(lws.result.outcome == webhook::Outcome::Patched);
  const std::string tpl = "/spec/leaderWorkerTemplate/workerTemplate/metadata";
  CHECK(value_at(lws.object, tpl + "/labels/scheduling.x-k8s.io~1pod-group") == "serve-group");
  CHECK(value_at(lws.object, tpl + "/annotations/workload-map.io~1replica-gang") == "serve-group");
  CHECK(value_at(lws.object, tpl + "/annotations/workload-map.io~1replica-key") ==
        R"(.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"])");

  for (int group : {0, 2}) {
    const Admitted pod = admission.mutate(pod_of(lws.object, group));
    INFO(pod.result.body);
    CHECK(pod.result.outcome == webhook::Outcome::ReplicaGang);
    CHECK(value_at(pod.object, "/metadata/labels/scheduling.x-k8s.io~1pod-group") ==
          "serve-group-" + std::to_string(group));
    CHECK(value_at(pod.object, "/metadata/labels/app") == "serve");  // only values equal to the gang name
    // Called again (reinvocationPolicy IfNeeded): nothing more to do.
    const Admitted again = admission.mutate(pod.object);
    CHECK(again.result.outcome == webhook::Outcome::Controlled);
    CHECK(again.object == pod.object);
  }

  // The cluster side makes one PodGroup per group, under the names the pods finish with.
  test::ParsedObject stored = test::parse_json(lws.object);
  const catalog::Definition& lws_definition =
      *admission.state().catalog->find(stored.api_version, stored.kind).definition;
  const view::WorkloadView view = view::build_view(lws_definition, *stored.doc);
  const policy::SchedulerProfile* profile = admission.state().policy->profile("coscheduling");
  REQUIRE(profile);
  const auto objects =
      policy::gang_objects(policy::edits_for(*profile, "leaderworkerset.x-k8s.io", "LeaderWorkerSet").pod_group.get(),
                           nullptr, view, profile->gang_rule, stored.root, "serve", "q1")
          .pod_groups;
  REQUIRE(objects.size() == 3);
  for (int group = 0; group < 3; ++group) {
    CHECK(value_at(objects[group], "/metadata/name") == "serve-group-" + std::to_string(group));
    CHECK(number_at(test::parse_json(objects[group]).root, "/spec/minMember") == 4);
  }
}

TEST_CASE("a LeaderWorkerSet under YuniKorn: an application per group, one task group for the shared template") {
  Admission admission("yunikorn");
  const Admitted lws = admission.mutate(json_of(kServe));
  const Admitted pod = admission.mutate(pod_of(lws.object, 1));
  CHECK(value_at(pod.object, "/metadata/labels/yunikorn.apache.org~1app-id") == "serve-group-1");
  // Leader and workers share the template, so every pod names the last one's task group; that group holds the whole
  // gang's minimum, or YuniKorn would keep a placeholder for a task group no pod names.
  CHECK(value_at(pod.object, "/metadata/annotations/yunikorn.apache.org~1task-group-name") == "worker");
  test::ParsedObject groups =
      test::parse_json(value_at(pod.object, "/metadata/annotations/yunikorn.apache.org~1task-groups"));
  simdjson::dom::array list;
  REQUIRE(groups.root.get_array().get(list) == simdjson::SUCCESS);
  REQUIRE(list.size() == 1);
  CHECK(test::string_at(list.at(0).value_unsafe(), "/name") == "worker");
  CHECK(number_at(list.at(0).value_unsafe(), "/minMember") == 4);
}

TEST_CASE("profiles that name no gang on pods, and LWS's own Volcano integration, get no replica-gang annotations") {
  for (const char* profile : {"kai", "volcano", "kueue"}) {
    INFO(profile);
    Admission admission(profile);
    const Admitted lws = admission.mutate(json_of(kServe));
    CHECK(value_at(lws.object,
                   "/spec/leaderWorkerTemplate/workerTemplate/metadata/annotations/workload-map.io~1replica-gang") ==
          "<missing>");
  }
}

TEST_CASE("a replica-gang pod is left as it is, with a warning, when its key is not set or no definition reads it") {
  Admission admission("coscheduling");
  const Admitted lws = admission.mutate(json_of(kServe));

  const Admitted no_key = admission.mutate(pod_of(lws.object, -1));  // LWS's webhook has not labelled it yet
  CHECK(no_key.result.outcome == webhook::Outcome::Controlled);
  CHECK_THAT(no_key.result.body, Catch::Contains("is not set yet"));
  CHECK(value_at(no_key.object, "/metadata/labels/scheduling.x-k8s.io~1pod-group") == "serve-group");

  std::string foreign = pod_of(lws.object, 1);
  const std::string key = R"(.metadata.labels[\"leaderworkerset.sigs.k8s.io/group-index\"])";
  REQUIRE(foreign.find(key) != std::string::npos);
  foreign.replace(foreign.find(key), key.size(), ".metadata.name");
  const Admitted unknown = admission.mutate(foreign);
  CHECK(unknown.result.outcome == webhook::Outcome::Controlled);
  CHECK_THAT(unknown.result.body, Catch::Contains("no definition reads replica keys with"));
  CHECK(value_at(unknown.object, "/metadata/labels/scheduling.x-k8s.io~1pod-group") == "serve-group");
}

TEST_CASE("a pod that a pod owns (a YuniKorn placeholder) is never renamed") {
  Admission admission("coscheduling");
  const Admitted lws = admission.mutate(json_of(kServe));
  const Admitted placeholder = admission.mutate(pod_of(lws.object, 1, true));
  CHECK(placeholder.result.outcome == webhook::Outcome::Controlled);
  CHECK(value_at(placeholder.object, "/metadata/labels/scheduling.x-k8s.io~1pod-group") == "serve-group");
}

}  // namespace wm

namespace wm {

// Under the native profile a group's pods join their group's PodGroup in spec.schedulingGroup, with the name finished
// by the pod's replica key; while the key is not set (LWS labels the pod after this webhook), the immutable field is
// left unset for the call that has it (reinvocationPolicy IfNeeded).
TEST_CASE("a LeaderWorkerSet under native: each group's pods join their group's PodGroup in spec.schedulingGroup") {
  Admission admission("native");
  const Admitted lws = admission.mutate(json_of(kServe));
  CHECK(value_at(lws.object,
                 "/spec/leaderWorkerTemplate/workerTemplate/metadata/annotations/workload-map.io~1pod-group") ==
        "serve-group");
  for (int group : {0, 2}) {
    const Admitted pod = admission.mutate(pod_of(lws.object, group));
    INFO(pod.result.body);
    CHECK(pod.result.outcome == webhook::Outcome::ReplicaGang);
    CHECK(value_at(pod.object, "/spec/schedulingGroup/podGroupName") == "serve-group-" + std::to_string(group));
    CHECK(value_at(pod.object, "/metadata/annotations/workload-map.io~1pod-group") ==
          "serve-group-" + std::to_string(group));
  }
  const Admitted unkeyed = admission.mutate(pod_of(lws.object, -1));
  CHECK(value_at(unkeyed.object, "/spec/schedulingGroup/podGroupName") == "<missing>");
}

}  // namespace wm
