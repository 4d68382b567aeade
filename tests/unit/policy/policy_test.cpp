// The policy's profile features: overrides that take keys out or apply only to standalone objects, gang rules,
// and PodGroup templates rendered as objects.
#include "policy/policy.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "mapper/view/gangs.h"
#include "policy/gang_values.h"
#include "policy/object_template.h"
#include "tests/support/test_support.h"

namespace wm::policy {
namespace {

std::optional<Policy> load(const std::string& profiles, yaml::Diagnostics& errors) {
  return Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\nschedulerProfiles:\n" + profiles +
                          "rules:\n- name: all\n  profile: p\n",
                      "policy.yaml", errors);
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
  CHECK(keys(Policy::edits_for(*p, "ray.io", "RayCluster").pod_annotations) == std::vector<std::string>{"b", "c"});
  CHECK_FALSE(Policy::edits_for(*p, "ray.io", "RayCluster").pod_group);
  CHECK(Policy::edits_for(*p, "apps", "Deployment").pod_group);
  CHECK(keys(Policy::edits_for(*p, "", "Pod", true).pod_annotations) == std::vector<std::string>{"a", "b", "d"});
  CHECK(keys(Policy::edits_for(*p, "", "Pod", false).pod_annotations) == std::vector<std::string>{"a", "b"});
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
  for (const auto& [profiles, field] : std::vector<std::pair<std::string, std::string>>{
           {"  p:\n    podLabels: {a: null}\n", "schedulerProfiles.p.podLabels.a"},
           {"  p:\n    gangRule: most\n", "schedulerProfiles.p.gangRule"},
           {"  p:\n    podGroup: {spec: {minMember: \"{{size}}\"}}\n", "schedulerProfiles.p.podGroup"},
           {"  p:\n    podGroup: null\n", "schedulerProfiles.p.podGroup"},
       }) {
    yaml::Diagnostics errors;
    auto policy = load(profiles, errors);
    INFO(profiles);
    CHECK_FALSE(policy);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == field);
  }
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
  INFO(t.error());
  REQUIRE(t);
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
