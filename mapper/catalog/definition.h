// A workload type's definition, in the format of NVIDIA Workload Map's Karta CRD
// (apiVersion run.ai/v1alpha1, kind Karta). Every path is a jq expression evaluated over the whole
// object; streams from a component's paths line up by position (the i-th pod template goes with the
// i-th replica count and the i-th instance id).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mapper/expr/path_expression.h"

namespace wm::catalog {

using Path = std::shared_ptr<const expr::PathExpression>;  // null when the field is not set

struct GroupVersionKind {
  std::string group, version, kind;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  std::string str() const { return kind + "." + (group.empty() ? "core" : group) + "/" + version; }
};

struct FragmentedPodSpec {
  Path scheduler_name, labels, annotations, resources, resource_claims, pod_affinity, node_affinity, containers,
      container, priority_class_name, image, affinity;
};

// A fragmentedPodSpecDefinition's fields, each with its member: what the loader accepts, what its checks visit and
// how the view names a field in a warning all come from this one list.
struct FragmentedField {
  const char* name;
  Path FragmentedPodSpec::*member;
};
inline constexpr FragmentedField kFragmentedFields[] = {
    {"schedulerNamePath", &FragmentedPodSpec::scheduler_name},
    {"labelsPath", &FragmentedPodSpec::labels},
    {"annotationsPath", &FragmentedPodSpec::annotations},
    {"resourcesPath", &FragmentedPodSpec::resources},
    {"resourceClaimsPath", &FragmentedPodSpec::resource_claims},
    {"podAffinityPath", &FragmentedPodSpec::pod_affinity},
    {"nodeAffinityPath", &FragmentedPodSpec::node_affinity},
    {"containersPath", &FragmentedPodSpec::containers},
    {"containerPath", &FragmentedPodSpec::container},
    {"priorityClassNamePath", &FragmentedPodSpec::priority_class_name},
    {"imagePath", &FragmentedPodSpec::image},
    {"affinityPath", &FragmentedPodSpec::affinity},
};
// The field's name in a definition ("schedulerNamePath").
constexpr const char* fragmented_field_name(Path FragmentedPodSpec::*member) {
  for (const auto& f : kFragmentedFields)
    if (f.member == member) return f.name;
  return "";
}

struct SpecDefinition {
  Path pod_template_spec;                       // a PodTemplateSpec (metadata + spec)
  Path pod_spec;                                // a PodSpec ...
  Path metadata;                                // ... and, optionally, the object holding its labels/annotations
  std::optional<FragmentedPodSpec> fragmented;  // pod fields scattered over a custom spec
};

// What Karta's schema has no field for, as YAML text in annotations of a Karta (which is validated against it):
// a definition's named minimums (ScaleDefinition::named_min_replicas), and KAI's hierarchical sub-groups
// (Definition::min_sub_groups, ScaleDefinition::sub_group_min_replicas).
inline constexpr std::string_view kMinimumsAnnotation = "workload-map.io/minimums";
inline constexpr std::string_view kSubGroupsAnnotation = "workload-map.io/sub-groups";
// Gangs an operator makes beside the definition's (Grove's scaled PodGangs): a jq expression yielding
// {name, minMember, pods, copies} per such gang (Definition::extra_gangs).
inline constexpr std::string_view kExtraGangsAnnotation = "workload-map.io/extra-gangs";
// A jq expression over the object yielding whole objects it wraps (an AppWrapper's components[].template), each read
// with the definition the catalog has for its own kind (Definition::wrapped_objects).
inline constexpr std::string_view kWrappedObjectsAnnotation = "workload-map.io/wrapped-objects";
// Objects of other kinds that the workload's pods come from (a TrainJob's TrainingRuntime), each found by a kind and a
// name the object gives (Definition::references); shaped as upstream Karta's `references` lookups by name.
inline constexpr std::string_view kReferencesAnnotation = "workload-map.io/references";
// A jq expression over {object, references: {name: object or null}} yielding the object the definition's paths read
// (Definition::resolved_object): the workload as its operator will build it from the object and its references.
inline constexpr std::string_view kResolvedObjectAnnotation = "workload-map.io/resolved-object";
// "true": of the objects this kind owns, only its components' kinds (and additionalChildKinds) are its parts; another
// it owns (what an Argo Workflow's resource template creates, with an ownerReference to it) is a workload of its own
// (Definition::owns_only_components). Otherwise whatever it owns is its part.
inline constexpr std::string_view kOwnsOnlyComponentsAnnotation = "workload-map.io/owns-only-components";
// Where edits go for pods whose templates a referenced object holds (Definition::referenced_pod_edits).
inline constexpr std::string_view kReferencedPodEditsAnnotation = "workload-map.io/referenced-pod-edits";
// A jq expression over the object: the metadata, in the object, that its operator copies to the workload objects it
// makes from it (a DisaggregatedSet role's metadata, its LeaderWorkerSet's). The profile's workload labels and
// annotations go there too, where the schedulers that read them on those objects find them (Kueue's queue, the
// queue LWS's Volcano provider reads).
inline constexpr std::string_view kChildMetadataAnnotation = "workload-map.io/child-metadata";
// A jq expression over the object: the metadata of each sub-group of its gang, where a scheduler's grouper reads a
// sub-group's topology (KAI: a JobSet's Job templates, a RayCluster's head and worker group pod templates). A profile's
// subGroupAnnotations go there.
inline constexpr std::string_view kSubGroupMetadataAnnotation = "workload-map.io/sub-group-metadata";

struct ScaleDefinition {
  Path replicas, min_replicas, max_replicas;
  // Minimums some scheduler or operator computes its own way, by the name a profile asks for them with (`minimums`
  // in a policy); from the definition's workload-map.io/minimums annotation. min_replicas serves every other name.
  std::vector<std::pair<std::string, Path>> named_min_replicas;
  // A sub-group's own minimum once it starts (KAI's leaf and parent minimums), where it differs from what must start
  // first (min_replicas: 0 for a JobSet job that InOrder starts later).
  Path sub_group_min_replicas;

  const Path& min_replicas_for(std::string_view name) const {
    for (const auto& [n, path] : named_min_replicas)
      if (n == name) return path;
    return min_replicas;
  }
};

struct ConditionMatch {
  std::string type, status, reason;  // reason optional (empty)
};

struct StatusMatcher {
  std::optional<std::string> by_phase;
  std::vector<ConditionMatch> by_conditions;  // all must hold
  Path by_expression;
  std::string expected_result;
};

struct StatusDefinition {
  Path phase;
  Path conditions;
  std::string type_field = "type", status_field = "status", reason_field = "reason";
  // state name (initializing, running, ...) -> matchers, any of which selects the state
  std::vector<std::pair<std::string, std::vector<StatusMatcher>>> mappings;
};

struct ComponentDefinition {
  std::string name;
  std::optional<GroupVersionKind> kind;  // none: a logical grouping
  std::string owner;                     // parent component; empty for the root
  std::optional<SpecDefinition> spec;
  std::optional<ScaleDefinition> scale;
  Path instance_id;
  // podSelector.replicaSelector.keyPath: what tells this component's replicas apart, read from a pod at admission to
  // name its replica's gang.
  Path replica_key;
  std::optional<StatusDefinition> status;
  int line = 0;

  bool bears_pods() const { return spec.has_value(); }
};

struct PodGroupMember {
  std::string component;
  std::vector<std::string> group_by_key_paths;
  std::vector<std::string> filters;  // jq over one pod, all true for the pod to be a member
  std::vector<Path> filter_paths;    // the same, compiled
};

struct PodGroupDefinition {
  std::string name;
  std::vector<PodGroupMember> members;
};

// Where the pods of a gang or sub-group must land (KAI's topology-aware scheduling); a policy rule's may also say
// where each of the gang's sub-groups must land, inside the gang's domain (the definition's kSubGroupMetadata).
struct TopologyConstraint {
  std::string topology_name, required_level, preferred_level;
  std::string sub_group_required_level, sub_group_preferred_level;
  bool has_sub_group_levels() const { return !sub_group_required_level.empty() || !sub_group_preferred_level.empty(); }
};

// gangScheduling.podGroup, upstream's newer format: one gang for the workload, with a sub-group per listed
// component (each its own minimum), instead of the older podGroups list.
struct GangPodGroupDefinition {
  std::string name;
  struct SubGroup {
    std::string component;
    std::optional<TopologyConstraint> topology;
  };
  std::vector<SubGroup> sub_groups;
  std::optional<TopologyConstraint> topology;
};

// One referenced object: the kinds it may be (the cluster side watches them all) and the expressions, over the object,
// that give the kind (one of `kinds`, by kind name) and the name it is looked up by.
struct ReferenceDefinition {
  struct Kind {
    GroupVersionKind gvk;
    bool namespaced = true;  // looked up in the object's namespace; cluster-scoped kinds are not
  };
  std::string name;  // the key under `references` that the resolved-object expression reads it by
  std::vector<Kind> kinds;
  Path kind;         // null: the only kind in `kinds`
  Path object_name;  // the referenced object's metadata.name
  // The workload may come without it (an Argo Workflow names a WorkflowTemplate or holds its own templates): a name
  // that yields nothing or null is no reference, and an object not found leaves the workload's pods uncounted (a
  // warning; refused under a limit) instead of the workload not understood.
  bool optional = false;
};

// Pods whose templates a referenced object holds are edited through one entry of a list in the object that
// workload-map owns (a TrainJob's runtimePatches entry with manager workload-map.io), replaced whole: under
// `instance_list` in the entry, an item per edited instance, named by `instance_key`, with the pod labels and
// annotations at `pod_metadata` in it. Every location is an RFC 6901 pointer; the last three are relative to the entry
// and to the item.
struct ReferencedPodEdits {
  std::string list;
  std::vector<std::pair<std::string, std::string>> entry;  // the fields that tell the entry apart
  std::string instance_list, instance_key, pod_metadata;
  // Or every pod's edits in one place of the object that the operator gives all its pods (an Argo Workflow's
  // spec.podMetadata, spec.schedulerName, spec.podPriorityClassName over its WorkflowTemplate's): pointers into
  // the object, the two names optional.
  struct Shared {
    std::string pod_metadata, scheduler_name, priority_class_name;
  };
  std::optional<Shared> shared;
};

struct Definition {
  std::string name;      // metadata.name
  std::string file;      // where it was read from, for messages
  GroupVersionKind gvk;  // the root component's kind
  // The versions of that kind whose objects this definition reads: gvk.version, and those the annotation
  // workload-map.io/same-schema-versions names (ours: a Karta names one version; KubeRay's v1alpha1 is v1's schema).
  std::vector<std::string> versions;
  std::vector<ComponentDefinition> components;      // root first, then children in file order
  std::vector<GroupVersionKind> child_kinds;        // additionalChildKinds: made by the workload, not components
  std::vector<PodGroupDefinition> pod_groups;       // gangScheduling.podGroups (older format)
  std::optional<GangPodGroupDefinition> pod_group;  // gangScheduling.podGroup (newer; wins when both are set)
  Path min_sub_groups;   // how many of the podGroup's sub-groups must start (KAI's root minSubGroup); null: all
  Path extra_gangs;      // kExtraGangsAnnotation; shown by inspect, never written by admission
  Path wrapped_objects;  // kWrappedObjectsAnnotation: objects inside this one, read with their own kinds' definitions
  std::vector<ReferenceDefinition> references;  // kReferencesAnnotation
  Path resolved_object;                         // kResolvedObjectAnnotation: set exactly when `references` is not empty
  Path child_metadata;                          // kChildMetadataAnnotation
  Path sub_group_metadata;                      // kSubGroupMetadataAnnotation
  std::optional<ReferencedPodEdits> referenced_pod_edits;  // kReferencedPodEditsAnnotation; none: not edited
  bool owns_only_components = false;                       // kOwnsOnlyComponentsAnnotation

  const ComponentDefinition& root() const { return components.front(); }
  const ComponentDefinition* component(const std::string& name) const;
};

// Calls `each(field, path)` for every jq expression of the definition that is evaluated over objects
// (pod selectors and gang key paths match pods, not the object, and are left out).
void for_each_object_path(const Definition& definition,
                          const std::function<void(const std::string& field, const Path& path)>& each);

}  // namespace wm::catalog
