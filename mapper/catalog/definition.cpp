#include "mapper/catalog/definition.h"

namespace wm::catalog {

const ComponentDefinition* Definition::component(const std::string& name) const {
  for (const auto& c : components)
    if (c.name == name) return &c;
  return nullptr;
}

void for_each_object_path(const Definition& definition,
                          const std::function<void(const std::string& field, const Path& path)>& each) {
  auto visit = [&](const std::string& field, const Path& path) {
    if (path) each(field, path);
  };
  for (const auto& c : definition.components) {
    const std::string at = c.name + ".";
    if (c.spec) {
      visit(at + "podTemplateSpecPath", c.spec->pod_template_spec);
      visit(at + "podSpecPath", c.spec->pod_spec);
      visit(at + "metadataPath", c.spec->metadata);
      if (const auto& f = c.spec->fragmented) {
        for (const auto& field : kFragmentedFields) visit(at + field.name, (*f).*field.member);
      }
    }
    if (c.scale) {
      visit(at + "replicasPath", c.scale->replicas);
      visit(at + "minReplicasPath", c.scale->min_replicas);
      visit(at + "maxReplicasPath", c.scale->max_replicas);
      for (const auto& [name, path] : c.scale->named_min_replicas) visit(at + name + ".minReplicasPath", path);
      visit(at + "sub-groups.minReplicasPath", c.scale->sub_group_min_replicas);
    }
    visit(at + "instanceIdPath", c.instance_id);
    if (c.status) {
      visit(at + "phaseDefinition.path", c.status->phase);
      visit(at + "conditionsDefinition.path", c.status->conditions);
      for (const auto& [state, matchers] : c.status->mappings)
        for (const auto& m : matchers) visit(at + "statusMappings." + state + ".byExpression", m.by_expression);
    }
  }
  visit("sub-groups.minSubGroups (a count, like minReplicasPath)", definition.min_sub_groups);
  visit("extra-gangs", definition.extra_gangs);
  visit("wrapped-objects", definition.wrapped_objects);
  for (const auto& r : definition.references) {
    visit("references." + r.name + ".kind", r.kind);
    visit("references." + r.name + ".name", r.object_name);
  }
}

}  // namespace wm::catalog
