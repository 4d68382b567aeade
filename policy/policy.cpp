#include "policy/policy.h"

#include <fnmatch.h>

#include <algorithm>
#include <stdexcept>

#include "policy/embedded_policy.h"

namespace wm::policy {

bool kind_matches(const std::string& pattern, std::string_view group, std::string_view kind) {
  if (pattern == "*") return true;
  auto slash = pattern.find('/');
  if (slash == std::string::npos) return pattern == kind;
  return pattern.compare(0, slash, group) == 0 && slash == group.size() &&
         pattern.compare(slash + 1, std::string::npos, kind) == 0;
}

const SchedulerProfile* Policy::profile(std::string_view name) const {
  for (const auto& p : profiles_)
    if (p->name == name) return p.get();
  return nullptr;
}

std::vector<std::string> Policy::profile_names() const {
  std::vector<std::string> out;
  for (const auto& p : profiles_) out.push_back(p->name);
  return out;
}

void Policy::warm_up() const {
  for (const auto& p : profiles_)
    for (const auto& o : p->overrides)
      if (o.when) o.when->warm_up();
}

Policy Policy::builtin() {
  yaml::Diagnostics errors;
  auto policy = load(std::string(embedded_policy_text()), "manifests/base/policy.yaml", errors);
  if (!policy) throw std::runtime_error("the built-in policy does not load: " + errors.front().str());
  return std::move(*policy);
}

const Rule* Policy::match(std::string_view namespace_name, std::string_view group, std::string_view kind) const {
  const std::string ns(namespace_name);
  for (const auto& rule : rules_) {
    bool ns_ok = rule.namespaces.empty();
    for (const auto& glob : rule.namespaces) ns_ok = ns_ok || fnmatch(glob.c_str(), ns.c_str(), 0) == 0;
    if (!ns_ok) continue;
    for (const auto& k : rule.kinds)
      if (kind_matches(k, group, kind)) return &rule;
  }
  return nullptr;
}

bool ProfileEdits::uses(const char* variable) const {
  for (const TemplatePairs* list :
       {&pod_labels, &pod_annotations, &workload_labels, &workload_annotations, &sub_group_annotations})
    for (const auto& [key, t] : *list)
      if (t.uses(variable)) return true;
  return pod_scheduling_group && pod_scheduling_group->uses(variable);
}

bool ProfileEdits::writes(const char* variable) const {
  return uses(variable) || (pod_group && pod_group->uses(variable)) ||
         (workload && (workload->object.uses(variable) || workload->pod_group_template.uses(variable)));
}

void ProfileEdits::note_costly_values() {
  writes_priority_class = uses("priorityClassName");
  writes_task_groups = uses("taskGroups");
  reads_pod_scheduling_group = uses("podSchedulingGroup");
  carries_required_topology = writes("topologyRequired");
  carries_preferred_topology = writes("topologyPreferred");
  carries_preferred_topology_alone =
      carries_preferred_topology || writes("topologyPreferredOnly") || writes("topologyMode");
  carries_sub_group_required_topology = writes("topologySubGroupRequired");
  carries_sub_group_preferred_topology = writes("topologySubGroupPreferred");
}

ProfileEdits merged_edits(const ProfileEdits& base, const ProfileEdits& over) {
  ProfileEdits out = base;
  if (over.scheduler_name) out.scheduler_name = over.scheduler_name;
  if (!over.minimums.empty()) out.minimums = over.minimums;
  auto merge = [](TemplatePairs& into, const TemplatePairs& more, const std::vector<std::string>& removed) {
    std::erase_if(
        into, [&](const auto& pair) { return std::find(removed.begin(), removed.end(), pair.first) != removed.end(); });
    for (const auto& [k, v] : more) {
      bool replaced = false;
      for (auto& [ik, iv] : into)
        if (ik == k) iv = v, replaced = true;
      if (!replaced) into.emplace_back(k, v);
    }
  };
  merge(out.pod_labels, over.pod_labels, over.removed_pod_labels);
  merge(out.pod_annotations, over.pod_annotations, over.removed_pod_annotations);
  merge(out.workload_labels, over.workload_labels, over.removed_workload_labels);
  merge(out.workload_annotations, over.workload_annotations, over.removed_workload_annotations);
  merge(out.sub_group_annotations, over.sub_group_annotations, over.removed_sub_group_annotations);
  if (over.removes_pod_group) out.pod_group = nullptr;
  if (over.pod_group) out.pod_group = over.pod_group;
  if (over.removes_workload) out.workload = nullptr;
  if (over.workload) out.workload = over.workload;
  if (over.removes_pod_scheduling_group) out.pod_scheduling_group.reset();
  if (over.pod_scheduling_group) out.pod_scheduling_group = over.pod_scheduling_group;
  out.note_costly_values();
  return out;
}

}  // namespace wm::policy
