#include "policy/value_template.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace wm::policy {

namespace {

// The text variables, then the counts, in TemplateValues' order (render_into relies on it).
const char* const kVariables[] = {"name",
                                  "namespace",
                                  "kind",
                                  "group",
                                  "component",
                                  "instance",
                                  "queue",
                                  "priorityClassName",
                                  "taskGroups",
                                  "apiGroup",
                                  "objectName",
                                  "gangTemplate",
                                  "workloadObject",
                                  "podSchedulingGroup",
                                  "topologyName",
                                  "topologyRequired",
                                  "topologyPreferred",
                                  "topologyPreferredOnly",
                                  "topologyMode",
                                  "topologyGroup",
                                  "topologySubGroupName",
                                  "topologySubGroupRequired",
                                  "topologySubGroupPreferred",
                                  "gangSize",
                                  "pods",
                                  "gpus"};

std::string known_variables() {
  std::string known;
  for (const char* v : kVariables) known += (known.empty() ? "" : ", ") + std::string(v);
  return known;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

Result<ValueTemplate> ValueTemplate::parse(const std::string& text) {
  ValueTemplate t;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      t.parts_.push_back({text.substr(pos)});
      break;
    }
    if (open > pos) t.parts_.push_back({text.substr(pos, open - pos)});
    size_t close = text.find("}}", open);
    if (close == std::string::npos) return Error{"unclosed {{ in \"" + text + "\""};
    std::string name = trim(text.substr(open + 2, close - open - 2));
    int index = -1;
    for (int i = 0; i < static_cast<int>(std::size(kVariables)); ++i)
      if (name == kVariables[i]) index = i;
    if (index < 0) return Error{"unknown template variable {{" + name + "}} (known: " + known_variables() + ")"};
    t.parts_.push_back({"", index});
    t.about_gang_ =
        t.about_gang_ || name == "group" || name == "gangSize" || name == "taskGroups" || name == "gangTemplate";
    t.about_topology_ = t.about_topology_ || name.rfind("topology", 0) == 0;
    pos = close + 2;
  }
  return t;
}

std::string ValueTemplate::render(const TemplateValues& v) const {
  std::string out;
  render_into(out, v);
  return out;
}

void ValueTemplate::render_into(std::string& out, const TemplateValues& v) const {
  // In kVariables' order: the text variables, then the counts.
  const std::string_view texts[] = {v.name, v.namespace_name, v.kind, v.group, v.component, v.instance, v.queue,
                                    v.priority_class_name, v.task_groups, v.api_group, v.object_name, v.gang_template,
                                    v.workload_object, v.pod_scheduling_group, v.topology_name, v.topology_required,
                                    v.topology_preferred, v.topology_preferred_only, v.topology_mode,
                                    // The gang's name, only where it has a topology (a scheduler that ties the
                                    // gang's pod templates into one domain by a shared name: Kueue's podset groups).
                                    v.topology_mode.empty() ? std::string_view() : v.group, v.topology_sub_group_name,
                                    v.topology_sub_group_required, v.topology_sub_group_preferred};
  const long long counts[] = {v.gang_size, v.pods, v.gpus};
  constexpr int kTexts = static_cast<int>(std::size(texts));
  for (const auto& p : parts_) {
    if (p.variable < 0)
      out += p.literal;
    else if (p.variable < kTexts)
      out += texts[p.variable];
    else
      out += std::to_string(counts[p.variable - kTexts]);
  }
}

bool ValueTemplate::uses_variables() const {
  return std::any_of(parts_.begin(), parts_.end(), [](const Part& p) { return p.variable >= 0; });
}

bool ValueTemplate::uses(const char* variable) const {
  for (const auto& p : parts_)
    if (p.variable >= 0 && std::strcmp(kVariables[p.variable], variable) == 0) return true;
  return false;
}

void set_topology(TemplateValues& values, const catalog::TopologyConstraint* topology) {
  if (!topology) {
    values.topology_name = values.topology_required = values.topology_preferred = {};
    values.topology_preferred_only = values.topology_mode = {};
    values.topology_sub_group_name = values.topology_sub_group_required = values.topology_sub_group_preferred = {};
    return;
  }
  values.topology_sub_group_name = topology->has_sub_group_levels() ? topology->topology_name : std::string_view();
  values.topology_sub_group_required = topology->sub_group_required_level;
  values.topology_sub_group_preferred = topology->sub_group_preferred_level;
  values.topology_required = topology->required_level;
  values.topology_preferred = topology->preferred_level;
  values.topology_preferred_only = topology->required_level.empty() ? topology->preferred_level : std::string_view();
  values.topology_mode = !topology->required_level.empty()    ? "hard"
                         : !topology->preferred_level.empty() ? "soft"
                                                              : std::string_view();
  // Only beside a level of the gang's own: KAI refuses a gang that names a topology without one ("no topology
  // constraints were found", pkg/scheduler/plugins/topology job_filtering.go), as with sub-group levels alone.
  values.topology_name = values.topology_mode.empty() ? std::string_view() : std::string_view(topology->topology_name);
}

}  // namespace wm::policy
