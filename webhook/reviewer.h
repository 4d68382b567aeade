// The decisions of one admission, once the object is understood: its patch on /mutate (every pod template edited as
// the rule's profile says, gang names and values rendered), its violations of the rule's limits on /validate, and the
// gangs its scheduler would wait on for ever. Knows the policy and the view; no workload type, no wire format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json/json_patch.h"
#include "mapper/view/references.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"
#include "policy/value_template.h"
#include "webhook/admission_codec.h"

namespace wm::webhook {

// "Kind namespace/name" (name* for a generateName object), as messages name a workload.
std::string display_name(const view::WorkloadView& view, std::string_view namespace_name);

class Reviewer {
 public:
  // `edits`: the rule's profile's for this object (policy::edits_for), or none without a profile.
  Reviewer(const AdmissionRequest& req, const policy::Rule& rule, const view::WorkloadView& view,
           json::ObjectDocument& doc, const policy::ProfileEdits& edits);

  // /mutate: the RFC 6902 patch of every pod template and of the workload itself; what cannot be edited is added to
  // `warnings`.
  std::string patch(std::vector<std::string>& warnings);

  // /validate: each limit of the rule the workload breaks, as the denial says it.
  std::vector<std::string> violations();

  // Gangs the profile's scheduler would wait on for ever; refused or warned of, as the rule says.
  std::vector<std::string> unmeetable() const;
  // Pod templates whose pods the API server will refuse (mapper/view/pod_rules.h), each as a warning; refused under
  // the rule's refuseInvalidPods.
  std::vector<std::string> invalid_pods() const;
  // Each level of the gangs' topology that the profile's edits hand to no scheduler (native's preferred level, any
  // under coscheduling), each a warning; refused under the rule's refuseDroppedTopology.
  std::vector<std::string> dropped_topology() const;
  // Gangs that must land inside one domain of a topology level (their required level) that the cluster's Nodes cannot
  // give them, as the cluster side last summed them (`cluster`'s NodeDomains): a gang larger than the largest domain
  // never starts (refused under refuseUnmeetableGangs, with `refusals`); a level no node carries leaves it waiting
  // until nodes are labelled (a warning). Nothing before the cluster side has listed the Nodes.
  void unfit_topology(const view::ReferenceStore* cluster, std::vector<std::string>& warnings,
                      std::vector<std::string>& refusals) const;
  // Devices the workload's DRA claims ask for that are not counted, and pods held by a referenced object that is not
  // known, each a warning (refused under a limit they could break: policy/limits.h).
  std::vector<std::string> uncounted_devices() const;

  // A warning when the workload's queue is not among the queue objects of the profile's scheduler that the cluster
  // side holds (`queues`, once it has listed their kind): that scheduler leaves the workload pending until the queue
  // exists. Nothing when the scheduler's queues are not objects, or the cluster side has not listed them.
  std::optional<std::string> missing_queue(const view::ReferenceStore* queues) const;

  // A warning when the gangs' topology level is not among those of the scheduler's topology objects the cluster side
  // holds (the profile's topologyObjects: a KAI Topology of the topology's name, a Kueue Topology): the scheduler
  // leaves them pending until one has it. Nothing before the cluster side has listed that kind.
  std::optional<std::string> missing_topology(const view::ReferenceStore* cluster) const;

  // A warning when the kind of PodGroup the profile makes for this workload's gangs is one the cluster side found the
  // API server does not serve (ReferenceStore::known_unserved): the workload would get no gang, silently.
  std::optional<std::string> unserved_pod_group(const view::ReferenceStore* cluster) const;
  // A warning when the workload's gangs are more than the profile's workload object holds: its PodGroups then stand
  // alone, without one (policy/gang_values.h no_workload_object).
  std::optional<std::string> no_workload_object() const;

 private:
  // The gang's task groups, made the first time one of its pod templates needs them: every pod gets the same text.
  std::string_view task_groups_of(const view::GangGroupView* gang);
  // On UPDATE, a pod template is edited only when this update changes it. One it leaves alone stays exactly as
  // stored: the API server holds some immutable (a Job's), and for others any change starts a rollout of every pod
  // (a Deployment's), so a policy change must not be written into them by an unrelated update (a label, a scale).
  bool changed_by_this_request(const std::string& location) const;
  // The workload object's own edits, and those on the metadata of its children and sub-groups.
  void workload_edits(json::JsonPatchBuilder& patch, std::vector<std::string>& warnings);
  // The pod template already names a PodGroup in its own spec (its author's): left as it is.
  // The instance's pod spec's own spec.schedulingGroup, when it has one.
  std::optional<simdjson::dom::element> own_scheduling_group(const view::InstanceView& instance) const;

  const AdmissionRequest& req_;
  const policy::Rule& rule_;
  const view::WorkloadView& view_;
  json::ObjectDocument& doc_;
  const policy::ProfileEdits& profile_;
  std::string name_, namespace_name_, queue_;
  std::vector<std::string> gang_names_;   // by position in view_.gangs
  std::vector<std::string> task_groups_;  // by position in view_.gangs, when the profile writes them
  std::string priority_class_;
  policy::TemplateValues values_;
  bool names_gangs_on_pods_ = false;  // some pod label or annotation is written {{group}}
};

}  // namespace wm::webhook
