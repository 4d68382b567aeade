// One topology line of a rule, written where each built-in profile's scheduler reads it (KAI's workload annotations,
// Kueue's pod set annotations, Volcano's networkTopology, Kubernetes' schedulingConstraints), and what a profile
// cannot carry said as dropped; the policy refuses a topology it cannot place, naming the field.
#include "policy/topology.h"

#include <catch2/catch.hpp>

#include "base/json/json_read.h"
#include "policy/profile_choice.h"
#include "policy/profiled_view.h"
#include "tests/support/test_support.h"

namespace wm::policy {
namespace {

// A policy of one rule (no schedulerProfiles: the built-in ones) with a topology of three levels.
std::string policy_text(const std::string& profile, const std::string& topology, const std::string& limits = "{}") {
  return "apiVersion: workload-map.io/v1alpha1\nkind: Policy\n"
         "topologies:\n  racks:\n    levels: [example.com/block, example.com/rack, kubernetes.io/hostname]\n"
         "rules:\n- name: all\n  profile: " +
         profile + "\n  topology: " + topology + "\n  limits: " + limits + "\n";
}

struct Profiled {
  AdmissionState state;
  std::vector<test::ParsedObject> objects;
  ProfiledView profiled;
  GangObjects made;

  // `manifest`: a workload's YAML, by default examples/jobset-12-gpus.yaml.
  Profiled(const std::string& profile, const std::string& topology, const std::string& manifest = "")
      : objects(manifest.empty() ? test::parse_file(test::source_path("examples/jobset-12-gpus.yaml"))
                                 : test::parse_yaml(manifest)) {
    yaml::Diagnostics errors;
    auto policy = Policy::load(policy_text(profile, topology), "policy.yaml", errors);
    REQUIRE(errors.empty());
    REQUIRE(policy);
    state.catalog = std::shared_ptr<const catalog::Catalog>(&test::builtin_catalog(), [](const catalog::Catalog*) {});
    state.policy = std::make_shared<const Policy>(std::move(*policy));
    const Rule& rule = state.policy->rules().front();
    json::ObjectDocument& doc = *objects.front().doc;
    ProfiledViewRequest request;
    request.profile = rule.profile;
    request.topology = &*rule.topology;
    const catalog::Definition& definition =
        *state.catalog->find(json::string_at(doc.root(), "/apiVersion"), json::string_at(doc.root(), "/kind"))
             .definition;
    profiled = profiled_view(state, definition, doc, request);
    made = gang_objects(profiled, *rule.profile, doc.root(), "train", "q");
  }
  std::vector<std::string> writes() const { return topology_writes(*profiled.edits, profiled.view); }
  std::vector<std::string> dropped() const { return dropped_topology(*profiled.edits, profiled.view); }
};

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("topology: the rule's levels are written where each profile's scheduler reads them") {
  const std::string rack_then_host = "{name: racks, required: example.com/rack, preferred: kubernetes.io/hostname}";
  SECTION("kai: the three annotations its podgrouper reads on the top owner") {
    const Profiled kai("kai", rack_then_host);
    CHECK(kai.writes() ==
          Strings{"workloadAnnotations kai.scheduler/topology=racks",
                  "workloadAnnotations kai.scheduler/topology-required-placement=example.com/rack",
                  "workloadAnnotations kai.scheduler/topology-preferred-placement=kubernetes.io/hostname"});
    CHECK(kai.dropped().empty());
  }
  SECTION("kueue: one of the two pod set annotations; the preferred level goes where none is required") {
    const Profiled required("kueue", rack_then_host);
    // The example's leader (1 pod) and workers are a pair that Kueue places in one domain by their group name.
    const std::string pair = "podAnnotations kueue.x-k8s.io/podset-group-name=train";
    CHECK(required.writes() ==
          Strings{"podAnnotations kueue.x-k8s.io/podset-required-topology=example.com/rack", pair});
    CHECK(required.dropped() == Strings{"its gangs' preferred level kubernetes.io/hostname of topology racks"});
    const Profiled preferred("kueue", "{name: racks, preferred: example.com/rack}");
    CHECK(preferred.writes() ==
          Strings{"podAnnotations kueue.x-k8s.io/podset-preferred-topology=example.com/rack", pair});
    CHECK(preferred.dropped().empty());
  }
  SECTION("kueue: a leader/worker pair of pod sets tied into one domain by a group name, other shapes not") {
    const std::string lws = R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
    leaderTemplate: {spec: {containers: [{name: c, image: i}]}}
    workerTemplate: {spec: {containers: [{name: c, image: i}]}}
)";
    const std::string pair = "podAnnotations kueue.x-k8s.io/podset-group-name=serve-group";
    CHECK_THAT(Profiled("kueue", rack_then_host, lws).writes(), Catch::VectorContains(pair));
    // Without a leader template a group is one pod set: Kueue refuses a group name on it.
    std::string workers_only = lws;
    workers_only.erase(workers_only.find("    leaderTemplate"),
                       workers_only.find("    workerTemplate") - workers_only.find("    leaderTemplate"));
    CHECK(Profiled("kueue", rack_then_host, workers_only).writes() ==
          Strings{"podAnnotations kueue.x-k8s.io/podset-required-topology=example.com/rack"});
    // A JobSet whose two replicated jobs both run several pods is no pair (nor is one of three).
    const std::string two_groups = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
  - name: leader
    template: {spec: {parallelism: 2, template: {spec: {containers: [{name: c, image: i}]}}}}
  - name: workers
    replicas: 2
    template: {spec: {parallelism: 4, completions: 4, template: {spec: {containers: [{name: c, image: i}]}}}}
)";
    CHECK(Profiled("kueue", rack_then_host, two_groups).writes() ==
          Strings{"podAnnotations kueue.x-k8s.io/podset-required-topology=example.com/rack"});
    CHECK(Profiled("kueue", "{name: racks, preferred: example.com/rack}", lws).writes() ==
          Strings{"podAnnotations kueue.x-k8s.io/podset-preferred-topology=example.com/rack", pair});
  }
  SECTION("volcano: the PodGroup's networkTopology, hard for a required level, soft for a preferred one alone") {
    const Profiled hard("volcano", "{name: racks, required: example.com/rack}");
    REQUIRE(hard.made.pod_groups.size() == 1);
    CHECK_THAT(hard.made.pod_groups[0],
               Catch::Contains(R"("networkTopology":{"mode":"hard","highestTierName":"example.com/rack"})"));
    CHECK(hard.dropped().empty());
    const Profiled soft("volcano", "{name: racks, preferred: example.com/rack}");
    CHECK_THAT(soft.made.pod_groups[0], Catch::Contains(R"("networkTopology":{"mode":"soft"})"));
    CHECK(soft.dropped().empty());
  }
  SECTION("native: the Workload's template and the PodGroup hold the required key; a preferred one is dropped") {
    const Profiled native("native", rack_then_host);
    const std::string constraint = R"("schedulingConstraints":{"topology":[{"key":"example.com/rack"}]})";
    CHECK_THAT(native.made.workload, Catch::Contains(constraint));
    REQUIRE(native.made.pod_groups.size() == 1);
    CHECK_THAT(native.made.pod_groups[0], Catch::Contains(constraint));
    CHECK(native.dropped() == Strings{"its gangs' preferred level kubernetes.io/hostname of topology racks"});
    const Profiled preferred_only("native", "{name: racks, preferred: example.com/rack}");
    CHECK_THAT(preferred_only.made.pod_groups[0], !Catch::Contains("schedulingConstraints"));
    CHECK(preferred_only.dropped() == Strings{"its gangs' preferred level example.com/rack of topology racks"});
  }
  SECTION("coscheduling and yunikorn keep no gang in a domain: both levels dropped, nothing written") {
    for (const char* profile : {"coscheduling", "yunikorn"}) {
      const Profiled p(profile, rack_then_host);
      CHECK(p.writes().empty());
      CHECK(p.dropped().size() == 2);
    }
  }
  SECTION("volcano's LeaderWorkerSet override hands gangs to LWS, which writes no networkTopology: dropped") {
    // The edits the override gives: no PodGroup of workload-map's, so nothing carries the level.
    yaml::Diagnostics errors;
    auto policy = Policy::load(policy_text("volcano", "{name: racks, required: example.com/rack}"), "p.yaml", errors);
    REQUIRE(policy);
    const ProfileEdits& lws =
        edits_for(*policy->profile("volcano"), "leaderworkerset.x-k8s.io", "LeaderWorkerSet", true);
    CHECK_FALSE(lws.carries_required_topology);
  }
}

TEST_CASE("topology: a gang without one gets none of the profiles' topology keys") {
  yaml::Diagnostics errors;
  auto policy = Policy::load(
      "apiVersion: workload-map.io/v1alpha1\nkind: Policy\nrules:\n- {name: all, profile: native}\n", "p", errors);
  REQUIRE(policy);
  AdmissionState state{std::shared_ptr<const catalog::Catalog>(&test::builtin_catalog(), [](auto*) {}),
                       std::make_shared<const Policy>(std::move(*policy))};
  auto objects = test::parse_file(test::source_path("examples/jobset-12-gpus.yaml"));
  json::ObjectDocument doc(objects.front().root);
  ProfiledViewRequest request;
  request.profile = state.policy->profile("native");
  const auto profiled =
      profiled_view(state, *state.catalog->find("jobset.x-k8s.io/v1alpha2", "JobSet").definition, doc, request);
  const GangObjects made = gang_objects(profiled, *request.profile, doc.root(), "train", "");
  CHECK_THAT(made.pod_groups.at(0), !Catch::Contains("schedulingConstraints"));
  CHECK_THAT(made.workload, !Catch::Contains("schedulingConstraints"));
  CHECK(dropped_topology(*profiled.edits, profiled.view).empty());
}

TEST_CASE("topology: a rule's sub-group levels sit inside the gang's, each named by its field when not") {
  auto error_of = [](const std::string& topology) {
    yaml::Diagnostics errors;
    (void)Policy::load(policy_text("kai", topology), "policy.yaml", errors);
    return errors.empty() ? std::string() : errors.front().field + ": " + errors.front().message;
  };
  CHECK(error_of("{name: racks, required: example.com/block, subGroups: {required: example.com/rack}}").empty());
  CHECK(error_of("{name: racks, subGroups: {preferred: kubernetes.io/hostname}}").empty());
  CHECK(error_of("{name: racks, required: example.com/rack, subGroups: {required: example.com/block}}") ==
        "rules[0].topology.subGroups.required: example.com/block is wider than the gang's required level "
        "example.com/rack: it must be that level or inside it");
  CHECK(error_of("{name: racks, subGroups: {required: example.com/rack, preferred: example.com/block}}") ==
        "rules[0].topology.subGroups.preferred: example.com/block is wider than the sub-groups' required level "
        "example.com/rack: it must be that level or inside it");
  CHECK(error_of("{name: racks, subGroups: {required: example.com/row}}") ==
        "rules[0].topology.subGroups.required: example.com/row is not a level of topology racks (example.com/block, "
        "example.com/rack, kubernetes.io/hostname)");
  CHECK(error_of("{name: racks, subGroups: {within: example.com/rack}}").rfind("rules[0].topology.subGroups", 0) == 0);
}

TEST_CASE("topology: the policy refuses a topology it cannot place, naming the field") {
  const std::pair<const char*, const char*> cases[] = {
      {"{name: pods, required: example.com/rack}", "rules[0].topology.name"},
      {"{name: racks, required: example.com/row}", "rules[0].topology.required"},
      {"{name: racks, preferred: topology.kubernetes.io/zone}", "rules[0].topology.preferred"},
      {"{name: racks, required: example.com/rack, preferred: example.com/block}", "rules[0].topology.preferred"},
      {"{name: racks}", "rules[0].topology"},
      {"{name: racks, required: example.com/rack, spread: true}", "rules[0].topology.spread"},
  };
  for (const auto& [topology, field] : cases) {
    INFO(topology);
    yaml::Diagnostics errors;
    CHECK_FALSE(Policy::load(policy_text("kai", topology), "policy.yaml", errors));
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == field);
    CHECK(errors[0].line == 9);
  }
  yaml::Diagnostics errors;
  CHECK_FALSE(Policy::load(
      "apiVersion: workload-map.io/v1alpha1\nkind: Policy\ntopologies:\n  t: {levels: [a, a]}\nrules: []\n", "p",
      errors));
  REQUIRE_FALSE(errors.empty());
  CHECK(errors[0].field == "topologies.t.levels");
}

TEST_CASE("topology: a profile's topology objects, and a level the scheduler has none of said") {
  const TopologySource kai{{"kai.scheduler", "v1alpha1", "Topology"}, true, "/spec/levels/*/nodeLabel"};
  const TopologySource kueue{{"kueue.x-k8s.io", "v1beta2", "Topology"}, false, "/spec/levels/*/nodeLabel"};
  auto topology_object = [](const std::string& api_version, const std::string& name, const std::string& levels) {
    return R"({"apiVersion":")" + api_version + R"(","kind":"Topology","metadata":{"name":")" + name +
           R"("},"spec":{"levels":[)" + levels + "]}}";
  };
  const std::string block_rack = R"({"nodeLabel":"example.com/block"},{"nodeLabel":"example.com/rack"})";
  simdjson::dom::parser parser;
  CHECK(object_levels(parser.parse(topology_object("kai.scheduler/v1alpha1", "racks", block_rack)).value(),
                      kai.levels) == std::vector<std::string>{"example.com/block", "example.com/rack"});

  const catalog::TopologyConstraint rack{"racks", "example.com/rack", ""}, host{"racks", "", "kubernetes.io/hostname"};
  view::ReferenceStore held;
  CHECK_FALSE(missing_topology_level(kai, held, rack));  // not listed yet: nothing known
  held.replace_kind("kai.scheduler", "Topology", {topology_object("kai.scheduler/v1alpha1", "rows", block_rack)});
  CHECK(missing_topology_level(kai, held, rack) == "no kai.scheduler/v1alpha1 Topology named racks exists");
  held.replace_kind("kai.scheduler", "Topology", {topology_object("kai.scheduler/v1alpha1", "racks", block_rack)});
  CHECK_FALSE(missing_topology_level(kai, held, rack));
  CHECK(missing_topology_level(kai, held, host) ==
        "level kubernetes.io/hostname is not among the levels of kai.scheduler/v1alpha1 Topology racks "
        "(example.com/block, example.com/rack)");

  held.replace_kind("kueue.x-k8s.io", "Topology", {});
  CHECK(missing_topology_level(kueue, held, rack) == "no kueue.x-k8s.io/v1beta2 Topology exists");
  held.replace_kind("kueue.x-k8s.io", "Topology",
                    {topology_object("kueue.x-k8s.io/v1beta2", "hosts", R"({"nodeLabel":"kubernetes.io/hostname"})"),
                     topology_object("kueue.x-k8s.io/v1beta2", "default", block_rack)});
  CHECK_FALSE(missing_topology_level(kueue, held, rack));  // any Topology of the kind may be a flavor's
  CHECK_FALSE(missing_topology_level(kueue, held, host));
  const catalog::TopologyConstraint zone{"racks", "topology.kubernetes.io/zone", ""};
  CHECK(missing_topology_level(kueue, held, zone) ==
        "level topology.kubernetes.io/zone is not among the levels of any kueue.x-k8s.io/v1beta2 Topology "
        "(example.com/block, example.com/rack, kubernetes.io/hostname)");

  // Kueue places only by a Topology a ResourceFlavor names (spec.topologyName), as the shipped profile's namedBy says.
  TopologySource flavored = kueue;
  flavored.named_by = {"kueue.x-k8s.io", "v1beta2", "ResourceFlavor"};
  flavored.named_by_pointer = "/spec/topologyName";
  auto flavor = [](const std::string& name, const std::string& topology) {
    return R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":")" + name +
           R"("},"spec":{"nodeLabels":{"pool":"a"})" +
           (topology.empty() ? std::string() : R"(,"topologyName":")" + topology + "\"") + "}}";
  };
  CHECK_FALSE(missing_topology_level(flavored, held, rack));  // no flavor listed yet: every Topology counts
  held.replace_kind("kueue.x-k8s.io", "ResourceFlavor", {flavor("gpus", "")});
  CHECK(missing_topology_level(flavored, held, rack) ==
        "level example.com/rack is only in kueue.x-k8s.io/v1beta2 Topology default, which no kueue.x-k8s.io/v1beta2 "
        "ResourceFlavor names (/spec/topologyName)");
  CHECK(missing_topology_level(flavored, held, zone) ==
        "no kueue.x-k8s.io/v1beta2 ResourceFlavor names a kueue.x-k8s.io/v1beta2 Topology (/spec/topologyName)");
  held.replace_kind("kueue.x-k8s.io", "ResourceFlavor", {flavor("gpus", "hosts")});
  CHECK_FALSE(missing_topology_level(flavored, held, host));
  CHECK(missing_topology_level(flavored, held, rack).value_or("").starts_with("level example.com/rack is only in"));
  held.replace_kind("kueue.x-k8s.io", "ResourceFlavor", {flavor("gpus", "hosts"), flavor("racks", "default")});
  CHECK_FALSE(missing_topology_level(flavored, held, rack));
  CHECK(missing_topology_level(flavored, held, zone) ==
        "level topology.kubernetes.io/zone is not among the levels of any kueue.x-k8s.io/v1beta2 Topology a "
        "kueue.x-k8s.io/v1beta2 ResourceFlavor names (example.com/block, example.com/rack, kubernetes.io/hostname)");

  // Volcano's HyperNodes: one level each, the tier name label discovery gives it.
  const TopologySource volcano{{"topology.volcano.sh", "v1alpha1", "HyperNode"}, false, "/spec/tierName"};
  held.replace_kind("topology.volcano.sh", "HyperNode",
                    {R"({"apiVersion":"topology.volcano.sh/v1alpha1","kind":"HyperNode","metadata":{"name":"h-1"},)"
                     R"("spec":{"tier":1,"tierName":"example.com/rack"}})"});
  CHECK_FALSE(missing_topology_level(volcano, held, rack));
  CHECK(missing_topology_level(volcano, held, zone) ==
        "level topology.kubernetes.io/zone is not among the levels of any topology.volcano.sh/v1alpha1 HyperNode "
        "(example.com/rack)");

  // The policy names the field of a wrong topologyObjects.
  for (const auto& [body, field] : std::vector<std::pair<std::string, std::string>>{
           {"{apiVersion: kai.scheduler/v1alpha1, kind: Topology, levels: spec.levels}", "levels"},
           {"{apiVersion: kai.scheduler/v1alpha1, levels: /spec/levels/*/nodeLabel}", ""},
           {"{apiVersion: kai.scheduler/v1alpha1, kind: Topology, levels: /l, byname: true}", ".byname"},
           {"{apiVersion: kueue.x-k8s.io/v1beta2, kind: Topology, levels: /l, namedBy: {kind: ResourceFlavor}}",
            ".namedBy"},
           {"{apiVersion: kueue.x-k8s.io/v1beta2, kind: Topology, levels: /l, namedBy: {apiVersion: kueue.x-k8s.io/"
            "v1beta2, kind: ResourceFlavor, name: spec.topologyName}}",
            ".namedBy.name"}}) {
    INFO(body);
    yaml::Diagnostics errors;
    CHECK_FALSE(
        Policy::load("apiVersion: workload-map.io/v1alpha1\nkind: Policy\nschedulerProfiles:\n  p:\n"
                     "    topologyObjects: " +
                         body + "\nrules: []\n",
                     "p", errors));
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field ==
          "schedulerProfiles.p.topologyObjects" + (field.empty() || field[0] == '.' ? field : "." + field));
  }
}

}  // namespace wm::policy
