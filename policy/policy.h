// The webhook's policy: scheduler profiles (what to write on pods and workloads, as data) and rules
// that select a profile, a queue and limits by namespace and kind. Nothing here knows a workload type.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json/object_document.h"
#include "base/yaml/diagnostic.h"
#include "mapper/catalog/definition.h"
#include "mapper/expr/path_expression.h"
#include "mapper/view/quantity.h"
#include "mapper/view/workload_view.h"
#include "policy/object_template.h"
#include "policy/value_template.h"

namespace wm::policy {

using TemplatePairs = std::vector<std::pair<std::string, ValueTemplate>>;

struct ProfileEdits {
  std::optional<std::string> scheduler_name;
  TemplatePairs pod_labels, pod_annotations, workload_labels, workload_annotations;
  // On the metadata of each sub-group of the gang, where the definition names it (its
  // workload-map.io/sub-group-metadata): where a scheduler's grouper reads a sub-group's own topology.
  TemplatePairs sub_group_annotations;
  // Keys an override sets to null: taken out of the profile's edits when merged.
  std::vector<std::string> removed_pod_labels, removed_pod_annotations, removed_workload_labels,
      removed_workload_annotations, removed_sub_group_annotations;
  // The object the scheduler needs per gang (a PodGroup), made after admission; an override's null drops it.
  std::shared_ptr<const ObjectTemplate> pod_group;
  bool removes_pod_group = false;
  // The object the scheduler needs once per workload (Kubernetes' Workload), made with its PodGroups; an override's
  // `workload: null` drops it.
  std::shared_ptr<const WorkloadTemplate> workload;
  bool removes_workload = false;
  // The PodGroup a pod template names in its own spec.schedulingGroup (a root Job's: the Job controller then makes no
  // gang of its own); not for gangs repeated per replica, whose pods each finish their name.
  std::optional<ValueTemplate> pod_scheduling_group;
  bool removes_pod_scheduling_group = false;
  // The definitions' named minimums this scheduler counts with (their workload-map.io/minimums), where they have
  // them; "" for their minReplicasPath.
  std::string minimums;

  bool uses(const char* variable) const;    // in any label or annotation template
  bool writes(const char* variable) const;  // there, or in the objects made for the gangs
  // Values that cost work to compute, asked for by a template here (noted once, when the policy loads).
  bool writes_priority_class = false, writes_task_groups = false, reads_pod_scheduling_group = false;
  // What of a gang's topology these edits hand to the scheduler (noted with the above): the required level, the
  // preferred one beside it, the preferred one alone. What they do not carry is dropped, and admission says so.
  bool carries_required_topology = false, carries_preferred_topology = false, carries_preferred_topology_alone = false;
  bool carries_sub_group_required_topology = false, carries_sub_group_preferred_topology = false;
  void note_costly_values();
};

// Where a profile's scheduler keeps its queues: the kind of object a queue is (KAI's scheduling.run.ai Queue,
// Volcano's), which the cluster side watches so that admission can warn of a queue the scheduler will never find,
// and the queue a stock install of the scheduler creates, for a workload whose rule names none.
struct QueueSource {
  catalog::GroupVersionKind object;  // no kind: the scheduler's queues are not objects
  std::string default_name;
};

// Where a profile's scheduler keeps the topologies a gang's levels must belong to: a kind of object whose `levels` (a
// JSON Pointer, `*` for each item of an array) are node label keys; the one named as the policy's topology when
// `by_name` (KAI's Topology), else any of them, or any that an object of `named_by` names (Kueue's, a ResourceFlavor's
// spec.topologyName). Watched by the cluster side, so
// that admission warns of a level no such object has: the scheduler leaves the gang pending.
struct TopologySource {
  catalog::GroupVersionKind object;  // no kind: nothing to check
  bool by_name = false;
  std::string levels;
  // The objects a topology counts only once one of them names it (Kueue's ResourceFlavors, spec.topologyName): the
  // kind and a JSON Pointer to the name. No kind: every topology object counts.
  catalog::GroupVersionKind named_by;
  std::string named_by_pointer;
};

// Where a profile's scheduler records a gang's state once admitted, for `get` and `describe`: the kind of object
// (a PodGroup, Kueue's Workload), found as the one the workload or one of its objects or pods owns; its minimum, its
// phase, and the conditions that say it waits, with the scheduler's own words. JSON Pointers, `*` for each item of an
// array (a minimum given so is summed: Kueue's pod sets).
struct GangStatusSource {
  catalog::GroupVersionKind object;  // no kind: the scheduler keeps no gang object (the pods' words are all there is)
  std::vector<std::string> min_member;  // the first that gives a number (KAI: the gang's, else its sub-groups')
  std::string phase;                    // "" when the object has none
  struct Waiting {
    std::string conditions;  // the list of conditions
    std::string type, status;
    std::vector<std::string> messages;  // where the condition says why, each read in turn
  };
  std::vector<Waiting> waiting;
};

struct SchedulerProfile {
  std::string name;
  ProfileEdits edits;
  QueueSource queues;
  TopologySource topologies;
  GangStatusSource gang_status;
  view::GangRule gang_rule = view::GangRule::Minimum;  // how this scheduler counts a gang's minimum
  struct Override {
    std::vector<std::string> kinds;  // "Pod" or "group/Kind"
    bool standalone_only = false;    // only objects no controller owns (Kueue's plain-pod groups)
    // Only objects for which this jq expression is true (a Job that asks the Job controller for its own gang): an
    // operator that makes a scheduler's objects itself when the object says so.
    std::shared_ptr<const expr::PathExpression> when;
    ProfileEdits edits;  // already merged over the profile's
    // Only workloads one of whose pod specs has this field (a JSON Pointer inside the pod spec): a workload that
    // brought its own object for the scheduler. Decided once the view is built, so its edits keep the profile's
    // minimums (the view was counted with them).
    std::string pod_spec_has;
  };
  std::vector<Override> overrides;
  bool decided_with_view = false;  // an override has pod_spec_has
};

struct Limits {
  view::ResourceList resources;  // max total of each resource for one workload
  std::optional<long long> max_pods;
  bool require_queue = false;
  std::vector<std::string> allowed_schedulers;
  bool require_requests_with_gpus = false;  // containers with GPU limits must request cpu and memory
  bool forbid_scheduler_override = false;   // a schedulerName set by the user must be the profile's
  // A gang whose minimum is more than its pods never starts: refused when set, else admitted with a warning.
  bool refuse_unmeetable_gangs = false;
  // A pod template whose pods the API server will refuse (mapper/view/pod_rules.h): refused when set, else admitted
  // with a warning.
  bool refuse_invalid_pods = false;
  // A topology level the profile cannot hand to its scheduler (rule.topology): refused when set, else admitted with a
  // warning.
  bool refuse_dropped_topology = false;
};

// A named topology of the cluster: node label keys, broadest first (block, rack or NVLink domain, host). Its name is
// the name of the scheduler's own object where one needs it (a KAI or Kueue Topology).
struct Topology {
  std::string name;
  std::vector<std::string> levels;
  int line = 0;
};

enum class FailurePolicy { Fail, Ignore };

struct Rule {
  std::string name;
  std::vector<std::string> namespaces;  // globs; empty or "*" = all
  std::vector<std::string> kinds;       // "Kind", "group/Kind" or "*"
  const SchedulerProfile* profile = nullptr;
  // queue_default is the rule's `queue.default`, else its profile's queues.default.
  std::optional<std::string> queue_value, queue_label, queue_default;
  TemplatePairs pod_labels, pod_annotations;
  // Used in its own pod labels or annotations.
  bool writes_priority_class = false, writes_task_groups = false, reads_pod_scheduling_group = false;
  Limits limits;
  // Where each gang of the rule's workloads must (required) or should (preferred) land: a level of one of the
  // policy's topologies. Over the definition's own (a Karta's gangScheduling.podGroup.topology).
  std::optional<catalog::TopologyConstraint> topology;
  bool mutate_on_update = false;
  bool summary_annotations = true;
  FailurePolicy failure_policy = FailurePolicy::Ignore;
  int line = 0;
};

class Policy {
 public:
  static std::optional<Policy> load(const std::string& text, const std::string& file, yaml::Diagnostics& errors);
  static Policy builtin();  // manifests/base/policy.yaml, compiled in

  const Rule* match(std::string_view namespace_name, std::string_view group, std::string_view kind) const;
  const std::vector<Rule>& rules() const { return rules_; }
  const SchedulerProfile* profile(std::string_view name) const;
  std::vector<std::string> profile_names() const;
  // What DRA DeviceClasses count as under limits (the `devices` section); what view options point at.
  const view::DeviceClassMapping& devices() const { return devices_; }
  const std::vector<Topology>& topologies() const { return topologies_; }
  // Compiles, on the calling thread, the jq of the profiles' overrides (their `when`): a worker does it before its
  // first request, so that no review pays a compile inside its deadline (a first kueue MPIJob on a loaded machine did).
  void warm_up() const;

  Policy() = default;
  Policy(Policy&&) = default;
  Policy& operator=(Policy&&) = default;

 private:
  static std::optional<Policy> load_checked(const std::string& text, const std::string& file,
                                            yaml::Diagnostics& errors);
  // Stable addresses for Rule::profile; the built-in ones shared by every policy of rules alone (read once).
  std::vector<std::shared_ptr<const SchedulerProfile>> profiles_;
  std::vector<Rule> rules_;
  view::DeviceClassMapping devices_;
  std::vector<Topology> topologies_;
};

bool kind_matches(const std::string& pattern, std::string_view group, std::string_view kind);
// `over`'s edits over `base`'s: its scheduler name if it has one, its keys replacing or added.
ProfileEdits merged_edits(const ProfileEdits& base, const ProfileEdits& over);

}  // namespace wm::policy
