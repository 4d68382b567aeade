// A workload's gangs as a scheduler profile sees them at admission (inspect --profile, review).
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "mapper/view/workload_view.h"
#include "policy/gang_values.h"
#include "policy/policy.h"

namespace wm::cli {

// The objects the profile needs for this workload's gangs (a PodGroup each, a Workload), as JSON, named as its
// admission names them; `doc` is the object, for the profile's overrides that look at it.
policy::GangObjects gang_objects_for(const policy::SchedulerProfile& profile, const view::WorkloadView& view,
                                     json::ObjectDocument& doc, const std::string& queue);
// Each gang by itself, under the name its pods and PodGroup get at admission.
void name_gangs_as_profile(view::WorkloadView& view);

}  // namespace wm::cli
