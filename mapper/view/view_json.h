// The view as JSON, for `inspect -o json` and for tools reading the webhook's annotations.
#pragma once

#include <string>

#include "mapper/view/workload_view.h"

namespace wm::view {

std::string view_json(const WorkloadView& view);
std::string resources_json(const ResourceList& list);
// gangs[]: name, members, minMember, topology, subGroups[] (name, component, minMember, topology).
std::string gangs_json(const std::vector<GangGroupView>& gangs);

}  // namespace wm::view
