// The policy's profile features: overrides that take keys out or apply only to standalone objects, gang rules,
// and PodGroup templates rendered as objects.
#include "policy/policy.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "mapper/view/gangs.h"
#include "policy/gang_values.h"
#include "policy/object_template.h"
#include "policy/profile_choice.h"
#include "tests/support/result_matchers.h"
#include "tests/support/test_support.h"

namespace wm::policy {
namespace {

std::optional<Policy> load(const std::string& profiles, yaml::Diagnostics& errors) {
  return Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\nschedulerProfiles:\n" + profiles +
                          "rules:\n- name: all\n  profile: p\n",
                      "policy.yaml", errors);
}

// Each (profiles, field): the policy with those profiles is refused, its first error naming the field.
void check_refused(const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [profiles, field] : cases) {
    yaml::Diagnostics errors;
    INFO(profiles);
    CHECK_FALSE(load(profiles, errors));
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == field);
  }
}

std::vector<std::string> keys(const TemplatePairs& pairs) {
  std::vector<std::string> out;
  for (const auto& [k, v] : pairs) out.push_back(k);
  return out;
}

}  // namespace

TEST_CASE("an override takes keys and the PodGroup template out with null, and can be for standalone objects only") {
  yaml::Diagnostics errors;
  auto policy = load(R"(  p:
    gangRule: all-pods
    podAnnotations: {a: "1", b: "2"}
    podGroup: {apiVersion: x/v1, kind: PodGroup, spec: {minMember: "{{gangSize}}"}}
    overrides:
    - kinds: [ray.io/RayCluster]
      podAnnotations: {a: null, c: "3"}
      podGroup: null
    - kinds: [Pod]
      standalone: true
      podAnnotations: {d: "4"}
)",
                     errors);
  REQUIRE(errors.empty());
  REQUIRE(policy);
  const SchedulerProfile* p = policy->profile("p");
  REQUIRE(p);
  CHECK(p->gang_rule == view::GangRule::AllPods);
  CHECK(keys(edits_for(*p, "ray.io", "RayCluster").pod_annotations) == std::vector<std::string>{"b", "c"});
  CHECK_FALSE(edits_for(*p, "ray.io", "RayCluster").pod_group);
  CHECK(edits_for(*p, "apps", "Deployment").pod_group);
  CHECK(keys(edits_for(*p, "", "Pod", true).pod_annotations) == std::vector<std::string>{"a", "b", "d"});
  CHECK(keys(edits_for(*p, "", "Pod", false).pod_annotations) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("minimums by name: a profile's, replaced by an override's for its kinds, in the view options") {
  yaml::Diagnostics errors;
  auto policy = load(R"(  p:
    minimums: ours
    overrides:
    - kinds: [ray.io/RayCluster]
      minimums: kuberay
)",
                     errors);
  REQUIRE(errors.empty());
  const SchedulerProfile* p = policy->profile("p");
  REQUIRE(p);
  CHECK(view_options_for(*p, "ray.io", "RayCluster").minimums == "kuberay");
  CHECK(view_options_for(*p, "apps", "Deployment").minimums == "ours");
  for (const char* bad : {"    minimums: \"\"\n", "    minimums: {a: b}\n"}) {
    yaml::Diagnostics refused;
    CHECK_FALSE(load(std::string("  p:\n") + bad, refused));
    REQUIRE_FALSE(refused.empty());
    CHECK(refused[0].field == "schedulerProfiles.p.minimums");
  }
}

TEST_CASE("null outside an override, an unknown gang rule and a bad PodGroup template are refused with their field") {
  check_refused({
      {"  p:\n    podLabels: {a: null}\n", "schedulerProfiles.p.podLabels.a"},
      {"  p:\n    gangRule: most\n", "schedulerProfiles.p.gangRule"},
      {"  p:\n    podGroup: {spec: {minMember: \"{{size}}\"}}\n", "schedulerProfiles.p.podGroup"},
      {"  p:\n    podGroup: null\n", "schedulerProfiles.p.podGroup"},
  });
}

TEST_CASE("a PodGroup template renders counts as numbers, objects as objects, and leaves empty values out") {
  YAML::Node node = YAML::Load(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: "{{group}}", namespace: "{{namespace}}", labels: {team: "a", quoted: "3"}}
spec:
  minMember: "{{gangSize}}"
  minTaskMember: "{{taskMinMembers}}"
  minResources: "{{gangResources}}"
  queue: "{{queue}}"
  priorityClassName: "{{priorityClassName}}"
  replicas: 2
  enabled: true
  list: ["{{queue}}", "x-{{kind}}"]
)");
  auto t = ObjectTemplate::parse(node, "podGroup");
  REQUIRE_THAT(t, test::IsOk());
  TemplateValues v;
  v.group = "train";
  v.namespace_name = "team-a";
  v.kind = "JobSet";
  v.gang_size = 3;
  CHECK(t->render_json(v, {R"({"nvidia.com/gpu":"12"})", R"({"leader":1,"workers":2})"}) ==
        R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"train",)"
        R"("namespace":"team-a","labels":{"team":"a","quoted":"3"}},"spec":{"minMember":3,)"
        R"("minTaskMember":{"leader":1,"workers":2},"minResources":{"nvidia.com/gpu":"12"},"replicas":2,)"
        R"("enabled":true,"list":["x-JobSet"]}})");
  CHECK(ObjectTemplate::parse(YAML::Load("[a]"), "podGroup").error() == "podGroup: must be an object");
}

TEST_CASE("policies of rules alone share the built-in profiles, read once (their jq compiled once)") {
  yaml::Diagnostics errors;
  const std::string rules = "apiVersion: workload-map.io/v1alpha1\nkind: Policy\nrules:\n- {name: all, profile: kai}\n";
  auto first = Policy::load(rules, "a.yaml", errors);
  auto second = Policy::load(rules, "b.yaml", errors);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(errors.empty());
  CHECK(first->profile("kueue") == second->profile("kueue"));
  CHECK(first->rules().front().profile == second->rules().front().profile);
  REQUIRE(first->profile("kueue"));
  CHECK(first->profile("kueue")->overrides.size() > 2);
}

TEST_CASE("{{topologyGroup}} is the gang's name only where the gang has a topology") {
  auto t = ValueTemplate::parse("{{topologyGroup}}");
  REQUIRE_THAT(t, test::IsOk());
  TemplateValues v;
  v.group = "train";
  CHECK(t->render(v).empty());
  const catalog::TopologyConstraint preferred{"racks", "", "example.com/rack"};
  set_topology(v, &preferred);
  CHECK(t->render(v) == "train");
  set_topology(v, nullptr);
  CHECK(t->render(v).empty());
}

// The native profile's Workload (manifests/base/policy.yaml) over gangs as the view gives them: one template per gang
// (made from the profile's podGroupTemplate), PodGroups that name the Workload and their template; and no Workload
// when the gangs are more than one holds (maxPodGroupTemplates, Kubernetes' 8), each PodGroup then standing alone.
TEST_CASE("a profile's workload object holds a template per gang, or is not made when the gangs do not fit") {
  const Policy builtin = Policy::builtin();
  const ProfileEdits& native = builtin.profile("native")->edits;
  REQUIRE(native.workload);
  REQUIRE(native.pod_group);
  CHECK(native.workload->max_pod_group_templates == 8);
  auto view_of_gangs = [](int gangs) {
    view::WorkloadView view;
    view.name = "fleet";
    view.namespace_name = "team-a";
    view.gvk = {"example.com", "v1", "Fleet"};
    for (int i = 0; i < gangs; ++i) {
      view::GangGroupView g;
      g.name = "g" + std::to_string(i);
      g.min_member = g.pods = i + 1;
      view.gangs.push_back(g);
    }
    return view;
  };
  simdjson::dom::parser parser;
  const std::string fleet = R"({"apiVersion":"example.com/v1","kind":"Fleet","metadata":{"name":"fleet"}})";
  const auto root = parser.parse(fleet).value();
  const view::WorkloadView eight = view_of_gangs(8);
  const GangObjects fits =
      gang_objects(native.pod_group.get(), native.workload.get(), eight, view::GangRule::Minimum, root, "fleet", "");
  CHECK(fits.no_workload.empty());
  CHECK(fits.workload ==
        R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"Workload","metadata":{"name":"fleet","namespace":)"
        R"("team-a"},"spec":{"controllerRef":{"apiGroup":"example.com","kind":"Fleet","name":"fleet"},)"
        R"("podGroupTemplates":[{"name":"g0","schedulingPolicy":{"gang":{"minCount":1}}},)"
        R"({"name":"g1","schedulingPolicy":{"gang":{"minCount":2}}},{"name":"g2","schedulingPolicy":{"gang":)"
        R"({"minCount":3}}},{"name":"g3","schedulingPolicy":{"gang":{"minCount":4}}},{"name":"g4",)"
        R"("schedulingPolicy":{"gang":{"minCount":5}}},{"name":"g5","schedulingPolicy":{"gang":{"minCount":6}}},)"
        R"({"name":"g6","schedulingPolicy":{"gang":{"minCount":7}}},{"name":"g7","schedulingPolicy":{"gang":)"
        R"({"minCount":8}}}]}})");
  REQUIRE(fits.pod_groups.size() == 8);
  CHECK(fits.pod_groups[3] ==
        R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"fleet-g3","namespace":)"
        R"("team-a"},"spec":{"workloadRef":{"workloadName":"fleet","templateName":"g3"},"schedulingPolicy":)"
        R"({"gang":{"minCount":4}}}})");

  const view::WorkloadView nine = view_of_gangs(9);
  const GangObjects alone =
      gang_objects(native.pod_group.get(), native.workload.get(), nine, view::GangRule::Minimum, root, "fleet", "");
  CHECK(alone.workload.empty());
  CHECK(alone.no_workload == "its 9 gangs are more than the 8 one Workload holds: each gang's PodGroup stands alone");
  REQUIRE(alone.pod_groups.size() == 9);
  CHECK(alone.pod_groups[8] ==
        R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"fleet-g8","namespace":)"
        R"("team-a"},"spec":{"schedulingPolicy":{"gang":{"minCount":9}}}})");
  CHECK(no_workload_object(*native.workload, nine) == alone.no_workload);
}

TEST_CASE("a profile's workload is checked when the policy loads, and an override can take it out") {
  check_refused({
      {"  p:\n    workload: {object: {kind: Workload}}\n", "schedulerProfiles.p.workload.podGroupTemplate"},
      {"  p:\n    workload: {object: {kind: W}, podGroupTemplate: {name: x}, maxPodGroupTemplates: 0}\n",
       "schedulerProfiles.p.workload.maxPodGroupTemplates"},
      {"  p:\n    workload: null\n", "schedulerProfiles.p.workload"},
      {"  p:\n    overrides:\n    - kinds: [batch/Job]\n      when: .spec.[\n",
       "schedulerProfiles.p.overrides[0].when"},
  });
  yaml::Diagnostics errors;
  auto p = load(
      "  p:\n    workload: {object: {kind: W}, podGroupTemplate: {name: x}}\n    overrides:\n"
      "    - kinds: [batch/Job]\n      when: .spec.scheduling != null\n      workload: null\n",
      errors);
  REQUIRE(p);
  const SchedulerProfile& profile = *p->profile("p");
  simdjson::dom::parser parser;
  const std::string plain_json = R"({"spec":{}})", asks_json = R"({"spec":{"scheduling":{}}})";
  json::ObjectDocument plain(parser.parse(plain_json).value());
  CHECK(edits_for(profile, "batch", "Job", true, &plain).workload);
  simdjson::dom::parser parser2;
  json::ObjectDocument asks(parser2.parse(asks_json).value());
  CHECK_FALSE(edits_for(profile, "batch", "Job", true, &asks).workload);
  CHECK(edits_for(profile, "batch", "Job").workload);  // no object: the condition does not hold
}

// A workload that brought its own object for the scheduler (a PodGroup its pod templates name) is known only once its
// pod specs are found: such an override is decided with the view, for any kind, and may not change how it is counted.
TEST_CASE("an override with whenPodSpecHas holds once the view finds the field in a pod spec") {
  check_refused({
      {"  p:\n    overrides:\n    - kinds: [\"*\"]\n      whenPodSpecHas: schedulingGroup\n",
       "schedulerProfiles.p.overrides[0].whenPodSpecHas"},
      {"  p:\n    overrides:\n    - kinds: [\"*\"]\n      whenPodSpecHas: /schedulingGroup\n      minimums: kai\n",
       "schedulerProfiles.p.overrides[0].minimums"},
  });
  yaml::Diagnostics errors;
  auto p = load(
      "  p:\n    podAnnotations: {group: \"{{group}}\"}\n    overrides:\n    - kinds: [\"*\"]\n"
      "      whenPodSpecHas: /schedulingGroup\n      podAnnotations: {group: null}\n",
      errors);
  REQUIRE(p);
  const SchedulerProfile& profile = *p->profile("p");
  CHECK(profile.decided_with_view);
  for (const bool own : {false, true}) {
    INFO("the Job's template names its own group: " << own);
    auto job = test::parse_yaml(std::string("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n") +
                                "  template: {spec: {" + (own ? "schedulingGroup: {podGroupName: mine}, " : "") +
                                "containers: [{name: c, image: x}]}}\n");
    REQUIRE(job.size() == 1);
    const auto match = test::builtin_catalog().find("batch/v1", "Job");
    REQUIRE(match.definition);
    const view::WorkloadView view = view::build_view(*match.definition, *job[0].doc);
    const ProfileEdits& counted = edits_for(profile, "batch", "Job", true, job[0].doc.get());
    CHECK(keys(counted.pod_annotations) == std::vector<std::string>{"group"});  // not decided without the view
    const ProfileEdits& edits = edits_with_view(profile, "batch", "Job", true, *job[0].doc, view, counted);
    CHECK(keys(edits.pod_annotations) == (own ? std::vector<std::string>{} : std::vector<std::string>{"group"}));
  }
}

// Volcano counts a task's pods by their volcano.sh/task-spec, which the profile writes per pod template. A
// LeaderWorkerSet without a leaderTemplate makes its leader from the workerTemplate, so every pod names the same
// task, and a minTaskMember asking for a leader is never met (the issue seen with Volcano: "Not enough valid pods
// of each task"). Members that share a template get no task minimums; with a leaderTemplate they do.
TEST_CASE("task minimums are left out when a gang's members share one pod template") {
  auto task_minimums = [](const std::string& leader_template) {
    auto objects = test::parse_yaml(R"(
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 4
)" + leader_template + R"(
    workerTemplate: {spec: {containers: [{name: w, image: x}]}}
)");
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc, view::ViewOptions{});
    REQUIRE(view.gangs.size() == 1);
    return task_min_members_json(view::gang_members(view.gangs[0], view.components, view::GangRule::Minimum));
  };
  CHECK(task_minimums("") == "");
  CHECK(task_minimums("    leaderTemplate: {spec: {containers: [{name: l, image: x}]}}") ==
        R"({"leader":1,"worker":3})");
}

}  // namespace wm::policy

namespace wm::policy {

TEST_CASE("devices: the built-in policy maps NVIDIA's DeviceClasses, and a wrong devices section names its field") {
  const Policy builtin = Policy::builtin();
  const auto& classes = builtin.devices().resources;
  CHECK(classes.at("gpu.nvidia.com") == "nvidia.com/gpu");
  CHECK(classes.at("vfio.gpu.nvidia.com") == "nvidia.com/gpu");
  CHECK(classes.at("mig.nvidia.com") == "mig.nvidia.com");
  CHECK(classes.at("compute-domain-default-channel.nvidia.com").empty());  // not counted
  CHECK_FALSE(builtin.devices().first_available_at_largest);

  for (const auto& [devices, field] : std::vector<std::pair<std::string, std::string>>{
           {"devices: {deviceClassMappings: [{name: a/gpu, deviceClassNames: [x]}], notCounted: [x]}\n",
            "devices.notCounted"},
           {"devices: {deviceClassMappings: [{deviceClassNames: [x]}]}\n", "devices.deviceClassMappings[0].name"},
           {"devices: {deviceClassMappings: [{name: a/gpu}]}\n", "devices.deviceClassMappings[0].deviceClassNames"},
           {"devices: {firstAvailable: smallest}\n", "devices.firstAvailable"},
           {"devices: {classes: {}}\n", "devices.classes"},
       }) {
    yaml::Diagnostics errors;
    auto policy = Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\n" + devices + "rules: []\n",
                               "policy.yaml", errors);
    INFO(devices);
    CHECK_FALSE(policy);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == field);
  }
  yaml::Diagnostics errors;
  auto largest = Policy::load(
      "apiVersion: workload-map.io/v1alpha1\nkind: Policy\ndevices: {firstAvailable: largest}\nrules: []\n", "p",
      errors);
  REQUIRE(largest);
  CHECK(largest->devices().first_available_at_largest);
}

}  // namespace wm::policy

namespace wm::policy {

TEST_CASE("devices: a policy without a devices section takes the built-in one's, and devices: {} maps nothing") {
  yaml::Diagnostics errors;
  auto without = Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\nrules: []\n", "p", errors);
  REQUIRE(without);
  CHECK(without->devices().resources == Policy::builtin().devices().resources);
  auto empty =
      Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\ndevices: {}\nrules: []\n", "p", errors);
  REQUIRE(empty);
  CHECK(empty->devices().resources.empty());
}

}  // namespace wm::policy
