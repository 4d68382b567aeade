// An object a profile describes as data (the PodGroup a scheduler needs per gang): a YAML tree whose string leaves
// are value templates. A leaf that is a single count ({{gangSize}}, {{pods}}, {{gpus}}) becomes a number, a leaf
// that is a single object variable ({{gangResources}}, {{taskMinMembers}}, {{podGroupTemplates}}) becomes that object,
// and a leaf that renders empty (no queue, say) is left out with its key, as is a map all of whose keys are and a list
// all of whose items are (a topology constraint for a gang without one).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapper/catalog/definition.h"
#include "policy/value_template.h"

namespace YAML {
class Node;
}

namespace wm::policy {

// Per-gang JSON values only an object template can hold.
struct ObjectValues {
  std::string_view gang_resources;    // {"cpu": "24", ...}: what the gang's minimum asks for
  std::string_view task_min_members;  // {"<instance>": n, ...}
  // [...]: the profile's podGroupTemplate rendered for each gang of the workload (a Workload's podGroupTemplates)
  std::string_view pod_group_templates;
};

class ObjectTemplate {
 public:
  // Refuses unknown variables, naming the field in `error`.
  static Result<ObjectTemplate> parse(const YAML::Node& node, const std::string& field);
  std::string render_json(const TemplateValues& values, const ObjectValues& objects) const;
  bool uses(const char* variable) const;  // in any of its values
  // The kind of object it makes, where its apiVersion and kind are written out (no variable in them).
  const std::optional<catalog::GroupVersionKind>& object_kind() const { return object_kind_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::optional<catalog::GroupVersionKind> object_kind_;
};

// A profile's `workload`: the object made once per workload, the entry it holds per gang of the workload's definition
// ({{podGroupTemplates}}), and how many entries one object may hold (0: no limit).
struct WorkloadTemplate {
  ObjectTemplate object, pod_group_template;
  size_t max_pod_group_templates = 0;
};

}  // namespace wm::policy
