// The uniform view of one live object: its components and their instances, every pod template with
// its exact location, replicas, pods, resource requests, gang groups and status phase.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"
#include "mapper/catalog/catalog.h"
#include "mapper/catalog/definition.h"
#include "mapper/view/claims.h"
#include "mapper/view/quantity.h"
#include "mapper/view/references.h"

namespace wm::view {

// Where an instance's pod fields live, as RFC 6901 pointers into the object. A field the definition
// cannot locate is empty; a pointer may name a field that does not exist yet (it will be created).
struct PodFieldLocations {
  std::optional<std::string> scheduler_name, priority_class_name, labels, annotations;
};

enum class PodShape { PodTemplate, PodSpec, Fragmented, Logical };
const char* shape_name(PodShape shape);

struct InstanceView {
  std::string component;
  std::string id;    // from instanceIdPath, else the component name (suffixed with the index if several)
  size_t index = 0;  // position in the component's streams
  PodShape shape = PodShape::Logical;
  std::string location;  // pointer to the pod template / pod spec; for fragmented specs, the resources
  long long replicas = 1;
  std::optional<long long> min_replicas, max_replicas;
  std::optional<long long> sub_group_min;  // its sub-group's own minimum, where the definition gives one
  long long pods = 0;                      // pods this instance yields (0 for a logical grouping)
  ResourceList pod_requests;               // one pod's effective request
  ResourceList total_requests;             // pod_requests x pods
  // How its containers break the API server's pod rules (mapper/view/pod_rules.h): its pods would be refused.
  std::vector<std::string> pod_rule_breaches;
  std::optional<std::string> scheduler_name;  // as the object sets it now
  PodFieldLocations fields;

  // The pointer to its pod spec: a template's spec, or the spec itself; none for a fragmented spec or a logical
  // grouping, which have no single place for pod spec fields.
  std::optional<std::string> pod_spec_location() const {
    if (shape == PodShape::PodTemplate) return location + "/spec";
    if (shape == PodShape::PodSpec) return location;
    return std::nullopt;
  }
};

struct ComponentView {
  std::string name;
  std::optional<catalog::GroupVersionKind> kind;
  std::string owner;
  bool bears_pods = false;
  std::vector<InstanceView> instances;
};

// How a scheduler counts a gang's minimum (a scheduler profile names one; see mapper/view/gangs.h).
enum class GangRule {
  Minimum,  // each instance's minReplicasPath where the definition has one, else all its pods
  AllPods,  // every pod the workload starts
};
const char* gang_rule_name(GangRule rule);
std::optional<GangRule> gang_rule_from_name(std::string_view name);

struct GangSubGroupView {
  std::string name;       // the instance id, or the component name
  std::string component;  // the sub-group's component
  long long min_member = 0;
  std::optional<catalog::TopologyConstraint> topology;
};

struct GangGroupView {
  std::string name;
  std::vector<std::string> members;  // component names, descendants included
  long long min_member = 0;          // pods that must start together, as the scheduler counts them
  long long pods = 0;                // pods one copy of the gang starts (less than min_member: it never starts)
  std::vector<GangSubGroupView> sub_groups;
  std::optional<long long> min_sub_groups;  // sub-groups that must start (KAI's minSubGroup); none: all of them
  std::optional<catalog::TopologyConstraint> topology;
  long long copies = 1;           // identical gangs, one per replica of the grouping component (LeaderWorkerSet groups)
  bool made_by_operator = false;  // one of the operator's own gangs (Definition::extra_gangs): no pod names it here
  // Set when the gang is repeated per replica (whatever `copies` is now: a scale changes it): the keyPath that tells
  // a pod's replica apart (podSelector.replicaSelector.keyPath of the grouping component).
  std::string replica_key_path;
  // Pod templates (component, instance id) of member components that the members' filters leave out.
  std::vector<std::pair<std::string, std::string>> excluded;

  bool counts(const std::string& component, const std::string& instance) const;
};

// The most pod templates one workload may have. A review's work grows with its templates (each is read, counted and
// edited, and the patch locates each edit), and a 3 MiB body can hold tens of thousands; no workload type has more than
// a few dozen, and a view with more is a problem (the rule's failure policy answers), so a review's cost stays bounded.
inline constexpr size_t kMaxPodTemplates = 1000;

struct WorkloadView {
  const catalog::Definition* definition = nullptr;
  catalog::GroupVersionKind gvk;  // as the object states it
  std::string name, namespace_name, generate_name;
  std::vector<ComponentView> components;
  long long total_pods = 0;
  ResourceList total_requests;  // the instances' totals and the shared claims' devices
  // Devices of ResourceClaims the pods name by resourceClaimName, once per workload however many pods share them, by
  // "namespace/name" (mapper/view/claims.h).
  std::map<std::string, ResourceList> shared_claims;
  // Devices the pods ask for through claims that could not be counted: warned of, and refused under a limit they
  // could break (policy/limits.h). Not problems: the rest of the workload is understood.
  std::vector<UncountedDevices> uncounted_devices;
  // Optional referenced objects the workload names that are not known (an Argo Workflow's WorkflowTemplate), each
  // "reference NAME: KIND NS/NAME (GROUP) is not known ...": the pods they hold are not counted. Warned of, and
  // refused under any resource or pod limit (policy/limits.h).
  std::vector<std::string> unresolved_references;
  // Where the profile's workload labels and annotations also go (Definition::child_metadata): metadata pointers.
  std::vector<std::string> child_metadata;
  // Where the profile's sub-group annotations go (Definition::sub_group_metadata): metadata pointers, located only
  // when ViewOptions::sub_group_metadata asks.
  std::vector<std::string> sub_group_metadata;
  std::vector<GangGroupView> gangs;
  std::vector<std::string> phases;  // empty unless asked for; "Undefined" when no mapping matches
  // What the definition could not read in this object (an expression's error, a count that is not one, a missing
  // referenced object). Any entry makes admission treat the object as not understood: the failure policy decides.
  std::vector<std::string> problems;
  // For a definition with references: the document its paths read (the workload as its operator builds it from the
  // object and the objects it refers to). Its locations are not in the object, so its pod fields are not edited.
  std::shared_ptr<ResolvedDocument> resolved;

  size_t pod_template_count() const;
  // Its name, else its generateName (an object the API server has not named yet).
  const std::string& given_name() const { return name.empty() ? generate_name : name; }
  // What the view's locations point into: the resolved document, else the object itself.
  json::ObjectDocument& document(json::ObjectDocument& object) const { return resolved ? *resolved->object : object; }
};

struct ViewOptions {
  bool status = false;  // evaluate the status mappings (not needed at admission)
  GangRule gang_rule = GangRule::Minimum;
  std::string minimums;  // the definitions' named minimums to use where they have them (a profile's `minimums`)
  // Evaluate what only inspect and review show, never admission: the definitions' sub-group minimums and
  // minSubGroups (KAI's hierarchy) and the gangs an operator adds on its own (Grove's scaled PodGangs).
  bool inspect_detail = false;
  // Locate the sub-groups' metadata (Definition::sub_group_metadata): only for a rule with sub-group levels, which
  // are written there; a path evaluated on every review of a JobSet otherwise.
  bool sub_group_metadata = false;
  // Where the objects a definition wraps (Definition::wrapped_objects) find their own definitions. Without it, such
  // objects are problems: the workload is not understood.
  const catalog::Catalog* catalog = nullptr;
  // Where the objects a definition refers to (Definition::references) are found, and the namespace of an object that
  // does not say its own (an admission request's). Without a store, such objects are problems.
  const ReferenceStore* references = nullptr;
  std::string_view namespace_name;  // must outlive build_view
  // What DRA DeviceClasses count as (the policy's devices section). Without it, only a DeviceClass's own
  // extendedResourceName counts its devices.
  const DeviceClassMapping* devices = nullptr;
};

WorkloadView build_view(const catalog::Definition& definition, json::ObjectDocument& doc,
                        const ViewOptions& options = {});

}  // namespace wm::view
