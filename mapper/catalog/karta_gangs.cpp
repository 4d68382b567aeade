// Karta's optimizationInstructions.gangScheduling: the older podGroups (members by component, grouped by key paths)
// and the newer podGroup (sub-groups by component, with topology constraints).
#include <utility>

#include "mapper/catalog/karta_reader.h"

namespace wm::catalog {

namespace {

class GangReader {
 public:
  explicit GangReader(DefinitionReader& r) : r_(r) {}

  void gang_scheduling(const YAML::Node& optimization, Definition& def);

 private:
  PodGroupDefinition pod_group(const YAML::Node& node, const std::string& field, const Definition& def);
  void pod_group_member(const YAML::Node& node, const std::string& field, const Definition& def, PodGroupDefinition& g);
  GangPodGroupDefinition gang_pod_group(const YAML::Node& node, const std::string& field, const Definition& def);
  std::optional<TopologyConstraint> topology(const YAML::Node& parent, const std::string& field);

  DefinitionReader& r_;
};

void GangReader::gang_scheduling(const YAML::Node& optimization, Definition& def) {
  if (!optimization.IsDefined() || !r_.map(optimization, "spec.optimizationInstructions", {"gangScheduling"})) return;
  YAML::Node gang = optimization["gangScheduling"];
  const std::string gf = "spec.optimizationInstructions.gangScheduling";
  if (!gang.IsDefined() || !r_.map(gang, gf, {"podGroups", "podGroup"})) return;
  r_.sequence(gang, "podGroups", gf,
              [&](const YAML::Node& n, const std::string& f) { def.pod_groups.push_back(pod_group(n, f, def)); });
  if (gang["podGroup"].IsDefined()) def.pod_group = gang_pod_group(gang["podGroup"], gf + ".podGroup", def);
}

PodGroupDefinition GangReader::pod_group(const YAML::Node& node, const std::string& field, const Definition& def) {
  PodGroupDefinition g;
  if (!r_.map(node, field, {"name", "members"})) return g;
  g.name = r_.string(node, "name", field, true).value_or("");
  r_.sequence(node, "members", field,
              [&](const YAML::Node& n, const std::string& f) { pod_group_member(n, f, def, g); });
  if (g.members.empty())
    r_.error(node, DefinitionReader::line_of(node), field + ".members", "a pod group needs members");
  return g;
}

void GangReader::pod_group_member(const YAML::Node& node, const std::string& field, const Definition& def,
                                  PodGroupDefinition& g) {
  if (!r_.map(node, field, {"componentName", "groupByKeyPaths", "filters"})) return;
  PodGroupMember member;
  member.component = r_.string(node, "componentName", field, true).value_or("");
  if (!member.component.empty() && !def.component(member.component))
    r_.error(node["componentName"], 0, field + ".componentName",
             "pod-group member component '" + member.component + "' is not defined");
  for (auto [key, list] : {std::pair{"groupByKeyPaths", &member.group_by_key_paths}, {"filters", &member.filters}})
    r_.sequence(node, key, field, [&, list = list](const YAML::Node& item, const std::string& itf) {
      if (!item.IsScalar()) {
        r_.error(item, 0, itf, "must be a jq expression");
        return;
      }
      Path compiled = r_.expression(item.Scalar(), item, 0, itf);
      list->push_back(item.Scalar());
      if (list == &member.filters && compiled) member.filter_paths.push_back(std::move(compiled));
    });
  g.members.push_back(std::move(member));
}

GangPodGroupDefinition GangReader::gang_pod_group(const YAML::Node& node, const std::string& field,
                                                  const Definition& def) {
  GangPodGroupDefinition g;
  if (!r_.map(node, field, {"name", "subGroups", "topology"})) return g;
  g.name = r_.string(node, "name", field, true).value_or("");
  g.topology = topology(node, field);
  r_.sequence(node, "subGroups", field, [&](const YAML::Node& n, const std::string& f) {
    if (!r_.map(n, f, {"componentName", "topology"})) return;
    GangPodGroupDefinition::SubGroup sub;
    sub.component = r_.string(n, "componentName", f, true).value_or("");
    if (!sub.component.empty() && !def.component(sub.component))
      r_.error(n["componentName"], 0, f + ".componentName",
               "sub-group component '" + sub.component + "' is not defined");
    for (const auto& other : g.sub_groups)
      if (other.component == sub.component)
        r_.error(n["componentName"], 0, f + ".componentName",
                 "component '" + sub.component + "' is already a sub-group");
    sub.topology = topology(n, f);
    g.sub_groups.push_back(std::move(sub));
  });
  return g;
}

std::optional<TopologyConstraint> GangReader::topology(const YAML::Node& parent, const std::string& field) {
  YAML::Node node = parent["topology"];
  if (!node.IsDefined()) return std::nullopt;
  const std::string f = field + ".topology";
  if (!r_.map(node, f, {"topologyName", "requiredTopologyLevel", "preferredTopologyLevel"})) return std::nullopt;
  return TopologyConstraint{r_.string(node, "topologyName", f, true).value_or(""),
                            r_.string(node, "requiredTopologyLevel", f, true).value_or(""),
                            r_.string(node, "preferredTopologyLevel", f, true).value_or("")};
}

}  // namespace

void read_karta_gangs(DefinitionReader& r, const YAML::Node& doc, Definition& def) {
  YAML::Node spec = doc["spec"];
  GangReader(r).gang_scheduling(spec["optimizationInstructions"], def);
}

}  // namespace wm::catalog
