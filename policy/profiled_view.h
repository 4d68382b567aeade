// One object as a scheduler profile sees it, in one place for admission, the PodGroup plan, `inspect` and `review`:
// the profile's edits chosen for the object (overrides by kind, owner and `when`), the view counted as the profile's
// scheduler counts a gang, then the edits chosen again with the view (overrides that look at the pod specs).
#pragma once

#include <optional>
#include <string_view>

#include "base/json/object_document.h"
#include "mapper/catalog/definition.h"
#include "mapper/view/workload_view.h"
#include "policy/admission_state.h"
#include "policy/gang_values.h"
#include "policy/policy.h"

namespace wm::policy {

struct ProfiledViewRequest {
  const SchedulerProfile* profile = nullptr;  // none: the definitions' own minimums, and no edits
  std::string_view namespace_name;            // of an object that does not say its own; must outlive the view
  // The object has no controller ownerReference; read from the object when not given.
  std::optional<bool> standalone;
  // The object as its user sent it (admission, the CLI): the overrides that look at its pod specs are decided. Once
  // admitted (the cluster side) its pod specs may name workload-map's own gang, so they are not.
  bool as_sent = true;
  bool status = false;          // map the status to phases
  bool inspect_detail = false;  // what only inspect and review show (view::ViewOptions::inspect_detail)
  // The rule's topology (Rule::topology), given to every gang in place of its definition's; must outlive the call.
  const catalog::TopologyConstraint* topology = nullptr;
};

struct ProfiledView {
  view::WorkloadView view;
  const ProfileEdits* edits = nullptr;  // the profile's for this object; empty edits without a profile
};

ProfiledView profiled_view(const AdmissionState& state, const catalog::Definition& definition,
                           json::ObjectDocument& doc, const ProfiledViewRequest& request);

// The objects the chosen edits make for the view's gangs (a PodGroup each, a Workload), as JSON, named `group_name`
// as admission names them; `root` is the object.
GangObjects gang_objects(const ProfiledView& profiled, const SchedulerProfile& profile, simdjson::dom::element root,
                         const std::string& group_name, const std::string& queue);

}  // namespace wm::policy
