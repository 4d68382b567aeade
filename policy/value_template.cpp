#include "policy/value_template.h"

#include <cstring>
#include <iterator>

namespace wm::policy {

namespace {

// The text variables, then the counts, in TemplateValues' order (render_into relies on it).
const char* const kVariables[] = {
    "name",           "namespace",          "kind",       "group",    "component",  "instance",
    "queue",          "priorityClassName",  "taskGroups", "apiGroup", "objectName", "gangTemplate",
    "workloadObject", "podSchedulingGroup", "gangSize",   "pods",     "gpus"};

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
    if (index < 0)
      return Error{"unknown template variable {{" + name +
                   "}} (known: name, namespace, kind, group, component, instance, queue, priorityClassName, "
                   "taskGroups, apiGroup, objectName, gangTemplate, workloadObject, podSchedulingGroup, gangSize, "
                   "pods, gpus)"};
    t.parts_.push_back({"", index});
    t.about_gang_ =
        t.about_gang_ || name == "group" || name == "gangSize" || name == "taskGroups" || name == "gangTemplate";
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
  const std::string_view texts[] = {v.name,
                                    v.namespace_name,
                                    v.kind,
                                    v.group,
                                    v.component,
                                    v.instance,
                                    v.queue,
                                    v.priority_class_name,
                                    v.task_groups,
                                    v.api_group,
                                    v.object_name,
                                    v.gang_template,
                                    v.workload_object,
                                    v.pod_scheduling_group};
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

bool ValueTemplate::uses(const char* variable) const {
  for (const auto& p : parts_)
    if (p.variable >= 0 && std::strcmp(kVariables[p.variable], variable) == 0) return true;
  return false;
}

}  // namespace wm::policy
