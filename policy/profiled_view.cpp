#include "policy/profiled_view.h"

#include "policy/owners.h"
#include "policy/profile_choice.h"

namespace wm::policy {

namespace {

view::ViewOptions options_for(const AdmissionState& state, const ProfiledViewRequest& request,
                              const ProfileEdits* edits) {
  view::ViewOptions options = edits ? view_options_for(*request.profile, *edits) : view::ViewOptions{};
  options.status = request.status;
  options.inspect_detail = request.inspect_detail;
  options.sub_group_metadata = request.topology && request.topology->has_sub_group_levels();
  options.catalog = state.catalog.get();
  options.references = state.references.get();
  options.namespace_name = request.namespace_name;
  options.devices = state.policy ? &state.policy->devices() : nullptr;
  return options;
}

}  // namespace

ProfiledView profiled_view(const AdmissionState& state, const catalog::Definition& definition,
                           json::ObjectDocument& doc, const ProfiledViewRequest& request) {
  static const ProfileEdits no_profile;
  const SchedulerProfile* profile = request.profile;
  const std::string& group = definition.gvk.group;
  const std::string& kind = definition.gvk.kind;
  const bool standalone = !profile || (request.standalone ? *request.standalone : !owners_of(doc.root()).controller);
  const ProfileEdits* counted = profile ? &edits_for(*profile, group, kind, standalone, &doc) : nullptr;
  // Built in place: a view is large, and this is on the admission path.
  ProfiledView out{view::build_view(definition, doc, options_for(state, request, counted)),
                   counted ? counted : &no_profile};
  if (profile && request.as_sent)
    out.edits = &edits_with_view(*profile, group, kind, standalone, doc, out.view, *counted);
  // The rule's topology holds for every gang, over the definition's own.
  if (request.topology)
    for (auto& g : out.view.gangs) g.topology = *request.topology;
  return out;
}

GangObjects gang_objects(const ProfiledView& profiled, const SchedulerProfile& profile, simdjson::dom::element root,
                         const std::string& group_name, const std::string& queue) {
  return gang_objects(profiled.edits->pod_group.get(), profiled.edits->workload.get(), profiled.view, profile.gang_rule,
                      root, group_name, queue);
}

}  // namespace wm::policy
