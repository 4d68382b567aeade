#include "cli/profile_gangs.h"

#include "mapper/view/gangs.h"
#include "policy/gang_values.h"
#include "policy/owners.h"

namespace wm::cli {

const policy::ProfileEdits& edits_for(const policy::SchedulerProfile& profile, const catalog::GroupVersionKind& gvk,
                                      json::ObjectDocument& doc) {
  return policy::Policy::edits_for(profile, gvk.group, gvk.kind, !policy::owners_of(doc.root()).controller, &doc);
}

const policy::ProfileEdits& edits_with_view(const policy::SchedulerProfile& profile,
                                            const catalog::GroupVersionKind& gvk, json::ObjectDocument& doc,
                                            const view::WorkloadView& view, const policy::ProfileEdits& counted) {
  return policy::Policy::edits_with_view(profile, gvk.group, gvk.kind, !policy::owners_of(doc.root()).controller, doc,
                                         view, counted);
}

policy::GangObjects gang_objects_for(const policy::SchedulerProfile& profile, const policy::ProfileEdits& edits,
                                     const view::WorkloadView& view, simdjson::dom::element root,
                                     const std::string& queue) {
  const std::string workload = view.name.empty() ? view.generate_name : view.name;
  return policy::gang_objects(edits.pod_group.get(), edits.workload.get(), view, profile.gang_rule, root, workload,
                              queue);
}

void name_gangs_as_profile(view::WorkloadView& view) {
  const std::string workload = view.name.empty() ? view.generate_name : view.name;
  std::vector<view::GangGroupView> named;
  for (const auto& g : view.gangs)
    for (auto& one : view::expanded_gangs({g}, 10000)) {
      one.name = view::gang_object_name(workload, view.gangs, g) == workload ? workload : workload + "-" + one.name;
      named.push_back(std::move(one));
    }
  view.gangs = std::move(named);
}

}  // namespace wm::cli
