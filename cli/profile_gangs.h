// A workload's gangs as a scheduler profile sees them at admission (inspect --profile, review).
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "mapper/view/workload_view.h"
#include "policy/gang_values.h"
#include "policy/policy.h"

namespace wm::cli {

// The profile's edits for this object (its overrides included, those that look at the object too).
const policy::ProfileEdits& edits_for(const policy::SchedulerProfile& profile, const catalog::GroupVersionKind& gvk,
                                      json::ObjectDocument& doc);
// The edits once `view` is built (an override that looks at its pod specs too, as admission decides); `counted`: the
// edits the view was built with (edits_for's).
const policy::ProfileEdits& edits_with_view(const policy::SchedulerProfile& profile,
                                            const catalog::GroupVersionKind& gvk, json::ObjectDocument& doc,
                                            const view::WorkloadView& view, const policy::ProfileEdits& counted);
// The objects `edits` make for this workload's gangs (a PodGroup each, a Workload), as JSON, named as its admission
// names them.
policy::GangObjects gang_objects_for(const policy::SchedulerProfile& profile, const policy::ProfileEdits& edits,
                                     const view::WorkloadView& view, simdjson::dom::element root,
                                     const std::string& queue);
// Each gang by itself, under the name its pods and PodGroup get at admission.
void name_gangs_as_profile(view::WorkloadView& view);

}  // namespace wm::cli
