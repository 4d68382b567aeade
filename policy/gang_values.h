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

// The objects a profile's podGroup template gives for the view's gangs, one per gang name the pods carry, as JSON.
// `root` is the object; `workload_name` the gang name its admission chose; `queue` its queue ("" for none).
std::vector<std::string> pod_group_objects(const ObjectTemplate& pod_group, const view::WorkloadView& view,
                                           view::GangRule rule, simdjson::dom::element root,
                                           const std::string& workload_name, const std::string& queue);

}  // namespace wm::policy
