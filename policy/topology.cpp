#include "policy/topology.h"

namespace wm::policy {

const catalog::TopologyConstraint* first_topology(const view::WorkloadView& view) {
  return view.gangs.empty() || !view.gangs.front().topology ? nullptr : &*view.gangs.front().topology;
}

std::vector<std::string> dropped_topology(const ProfileEdits& edits, const view::WorkloadView& view) {
  std::vector<std::string> out;
  const catalog::TopologyConstraint* t = first_topology(view);
  if (!t) return out;
  auto dropped = [&](const char* which, const std::string& level) {
    out.push_back(std::string("its gangs' ") + which + " level " + level + " of topology " + t->topology_name);
  };
  if (!t->required_level.empty() && !edits.carries_required_topology) dropped("required", t->required_level);
  const bool preferred_carried =
      t->required_level.empty() ? edits.carries_preferred_topology_alone : edits.carries_preferred_topology;
  if (!t->preferred_level.empty() && !preferred_carried) dropped("preferred", t->preferred_level);
  return out;
}

std::vector<std::string> topology_writes(const ProfileEdits& edits, const view::WorkloadView& view) {
  std::vector<std::string> out;
  TemplateValues values;
  set_topology(values, first_topology(view));
  const std::pair<const char*, const TemplatePairs*> lists[] = {{"podLabels", &edits.pod_labels},
                                                                {"podAnnotations", &edits.pod_annotations},
                                                                {"workloadLabels", &edits.workload_labels},
                                                                {"workloadAnnotations", &edits.workload_annotations}};
  for (const auto& [where, list] : lists)
    for (const auto& [key, t] : *list)
      if (t.about_topology())
        if (std::string value = t.render(values); !value.empty())
          out.push_back(std::string(where) + " " + key + "=" + value);
  return out;
}

}  // namespace wm::policy
