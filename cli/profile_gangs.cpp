#include "cli/profile_gangs.h"

#include "mapper/view/gangs.h"
#include "policy/gang_values.h"

namespace wm::cli {

std::vector<std::string> pod_groups_for(const policy::SchedulerProfile& profile, const view::WorkloadView& view,
                                        simdjson::dom::element root, const std::string& queue) {
  const policy::ProfileEdits& edits = policy::Policy::edits_for(profile, view.gvk.group, view.gvk.kind);
  if (!edits.pod_group) return {};
  const std::string workload = view.name.empty() ? view.generate_name : view.name;
  return policy::pod_group_objects(*edits.pod_group, view, profile.gang_rule, root, workload, queue);
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
