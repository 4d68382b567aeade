// Which of a profile's edits an object gets: the profile's own, or the first override for its kind, owner and content;
// and how the profile's scheduler counts its gangs. Pure functions of the profile and the object.
#pragma once

#include <string_view>

#include "base/json/object_document.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"

namespace wm::policy {

// The profile's edits with the first override for this kind merged over them; `standalone`: the object has no
// controller ownerReference. An override with a `when` applies only when `object` is given and its expression is
// true for it (false, or an error, passes over it). An override with a pod_spec_has passes over until the view is
// built (edits_with_view).
const ProfileEdits& edits_for(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                              bool standalone = true, json::ObjectDocument* object = nullptr);
// The edits once `view` of `object` is built: the first override that holds, now with those that look at the pod
// specs; `chosen` (edits_for's) when the profile has none of those. Only for the object as it was sent (admission,
// the CLI): once admitted, its pod specs may name workload-map's own gang.
const ProfileEdits& edits_with_view(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                                    bool standalone, json::ObjectDocument& object, const view::WorkloadView& view,
                                    const ProfileEdits& chosen);

// How the profile's scheduler counts a gang of this kind: its gang rule, and the minimums its edits for the kind name.
view::ViewOptions view_options_for(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                                   bool standalone = true, json::ObjectDocument* object = nullptr);
// The same, with the edits already chosen (edits_for).
view::ViewOptions view_options_for(const SchedulerProfile& profile, const ProfileEdits& edits);

}  // namespace wm::policy
