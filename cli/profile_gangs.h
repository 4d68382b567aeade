// A workload's gangs as a scheduler profile sees them at admission (inspect --profile, review).
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "mapper/view/workload_view.h"
#include "policy/policy.h"

namespace wm::cli {

// The objects (PodGroups) the profile needs for this workload's gangs, as JSON, named as its admission names them.
std::vector<std::string> pod_groups_for(const policy::SchedulerProfile& profile, const view::WorkloadView& view,
                                        simdjson::dom::element root, const std::string& queue);
// Each gang by itself, under the name its pods and PodGroup get at admission.
void name_gangs_as_profile(view::WorkloadView& view);

}  // namespace wm::cli
