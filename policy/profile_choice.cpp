#include "policy/profile_choice.h"

#include <algorithm>

namespace wm::policy {

namespace {

bool holds_for(const SchedulerProfile::Override& o, json::ObjectDocument* object) {
  if (!o.when) return true;
  if (!object) return false;
  const json::EvalResult r = o.when->evaluate(*object, false);
  return r.ok() && !r.values.empty() && r.values.front().truthy();
}

bool a_pod_spec_has(const std::string& field, json::ObjectDocument& object, const view::WorkloadView& view) {
  simdjson::dom::element root = view.document(object).root(), found;
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      if (const std::optional<std::string> spec = i.pod_spec_location())
        if (root.at_pointer(*spec + field).get(found) == simdjson::SUCCESS) return true;
  return false;
}

bool applies_to(const SchedulerProfile::Override& o, std::string_view group, std::string_view kind, bool standalone) {
  if (!standalone && o.standalone_only) return false;
  return std::any_of(o.kinds.begin(), o.kinds.end(), [&](const auto& k) { return kind_matches(k, group, kind); });
}

}  // namespace

const ProfileEdits& edits_for(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                              bool standalone, json::ObjectDocument* object) {
  for (const auto& o : profile.overrides)
    if (o.pod_spec_has.empty() && applies_to(o, group, kind, standalone) && holds_for(o, object)) return o.edits;
  return profile.edits;
}

const ProfileEdits& edits_with_view(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                                    bool standalone, json::ObjectDocument& object, const view::WorkloadView& view,
                                    const ProfileEdits& chosen) {
  if (!profile.decided_with_view) return chosen;
  // Only the overrides that look at the pod specs, and only those before `chosen`: edits_for passed over the others
  // there already (their `when` is not evaluated twice).
  for (const auto& o : profile.overrides) {
    if (&o.edits == &chosen) break;
    if (!o.pod_spec_has.empty() && applies_to(o, group, kind, standalone) && holds_for(o, &object) &&
        a_pod_spec_has(o.pod_spec_has, object, view))
      return o.edits;
  }
  return chosen;
}

view::ViewOptions view_options_for(const SchedulerProfile& profile, std::string_view group, std::string_view kind,
                                   bool standalone, json::ObjectDocument* object) {
  return view_options_for(profile, edits_for(profile, group, kind, standalone, object));
}

view::ViewOptions view_options_for(const SchedulerProfile& profile, const ProfileEdits& edits) {
  view::ViewOptions options;
  options.gang_rule = profile.gang_rule;
  options.minimums = edits.minimums;
  return options;
}

}  // namespace wm::policy
