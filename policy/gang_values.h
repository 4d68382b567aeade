// Values about one gang that profiles write, computed from the view: its pod templates as task groups (JSON) and
// the parts of a PodGroup object. Nothing here knows a workload type or a scheduler: the profile's templates
// decide where each value goes.
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "mapper/view/gangs.h"
#include "policy/object_template.h"

namespace wm::policy {

// [{name, minMember, minResource, nodeSelector, tolerations}] per pod template of the gang: YuniKorn's task-group
// format. `root` is the object, where each template's nodeSelector and tolerations are read.
std::string task_groups_json(const std::vector<view::GangMember>& members, simdjson::dom::element root);

// {instance id: minimum} per pod template of the gang (Volcano's minTaskMember).
std::string task_min_members_json(const std::vector<view::GangMember>& members);

// The spec.priorityClassName of the first pod template that sets one, or "".
std::string first_priority_class(const view::WorkloadView& view, simdjson::dom::element root);

// What a profile's object templates give for the view's gangs, as JSON: one PodGroup (`pod_group`) per gang name the
// pods carry and, with a `workload` template, the one object that holds an entry per gang of the definition (a gang
// repeated per replica once), which each PodGroup then names ({{workloadObject}}, {{gangTemplate}}). A workload with
// more gangs than that object may hold gets none: its PodGroups stand alone, and `no_workload` says why.
// `root` is the object; `workload_name` the gang name its admission chose; `queue` its queue ("" for none).
struct GangObjects {
  std::vector<std::string> pod_groups;
  std::string workload;     // "" when the profile has no workload template or the gangs do not fit one
  std::string no_workload;  // why the profile's workload template gave no object, when its gangs do not fit one
};
// Why the view's gangs get no object from `workload` (more gangs than it may hold), or "" when they do.
std::string no_workload_object(const WorkloadTemplate& workload, const view::WorkloadView& view);

GangObjects gang_objects(const ObjectTemplate* pod_group, const WorkloadTemplate* workload,
                         const view::WorkloadView& view, view::GangRule rule, simdjson::dom::element root,
                         const std::string& workload_name, const std::string& queue);

}  // namespace wm::policy
