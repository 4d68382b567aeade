// Small templates for label and annotation values: "{{queue}}", "{{name}}-{{component}}".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "mapper/catalog/definition.h"

namespace wm::policy {

// The values a template may use: views of strings the caller keeps.
struct TemplateValues {
  std::string_view name, namespace_name, kind, group, component, instance, queue;
  std::string_view priority_class_name;  // the first pod template's spec.priorityClassName
  std::string_view task_groups;          // YuniKorn's task groups of the gang, as JSON (only rendered when used)
  // For the objects the cluster side makes: the workload's API group ("" for core) and its own metadata.name; the
  // gang's template name in the workload object (its definition's gang name), and that object's name ("" for both
  // when it is not made).
  std::string_view api_group, object_name, gang_template, workload_object;
  // The PodGroup the pod template names in its own spec.schedulingGroup ("" when none): where a workload brought its
  // own gang, its pods' admission can name it again after an operator built from an older k8s.io/api dropped it.
  std::string_view pod_scheduling_group;
  // Where the gang's pods must or should land (set_topology): the topology's name, the node label key of the level
  // required and of the level preferred; the preferred one only when none is required (for a scheduler that takes one
  // of the two); "hard" when a level is required, "soft" when one is only preferred. All "" for a gang without one.
  // {{topologyGroup}} is `group` where the gang has a topology, "" otherwise (derived, not stored). The name, too, is
  // "" where the gang has no level of its own (only its sub-groups have).
  std::string_view topology_name, topology_required, topology_preferred, topology_preferred_only, topology_mode;
  // Where each of the gang's sub-groups must or should land; the topology's name only where one of them is set.
  std::string_view topology_sub_group_name, topology_sub_group_required, topology_sub_group_preferred;
  long long gang_size = 0, pods = 0, gpus = 0;
};

// The topology values of a gang with `topology` (null: none), views of it.
void set_topology(TemplateValues& values, const catalog::TopologyConstraint* topology);

class ValueTemplate {
 public:
  // Refuses unknown variables and unclosed braces, naming them in `error`.
  static Result<ValueTemplate> parse(const std::string& text);
  std::string render(const TemplateValues& values) const;
  void render_into(std::string& out, const TemplateValues& values) const;  // appends
  bool uses(const char* variable) const;
  bool uses_variables() const;  // false for a literal
  // Names the pod's gang ({{group}}, {{gangSize}}, {{taskGroups}}): meaningless for a pod in no gang.
  bool about_gang() const { return about_gang_; }
  // Names the gang's topology ({{topologyRequired}}, ...): empty, so left out, for a gang without one.
  bool about_topology() const { return about_topology_; }

 private:
  struct Part {
    std::string literal;
    int variable = -1;  // index into the variable table, or -1 for a literal
  };
  std::vector<Part> parts_;
  bool about_gang_ = false, about_topology_ = false;
};

}  // namespace wm::policy
