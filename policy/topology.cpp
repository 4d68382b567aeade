#include "policy/topology.h"

#include <algorithm>
#include <set>

#include "base/json/json_read.h"
#include "mapper/view/gangs.h"

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
  // A sub-group's level reaches a scheduler only on the sub-groups' metadata, where the kind's definition names it.
  auto sub_dropped = [&](const char* which, const std::string& level, bool carried) {
    if (!level.empty() && (!carried || view.sub_group_metadata.empty()))
      out.push_back(std::string("its sub-groups' ") + which + " level " + level + " of topology " + t->topology_name);
  };
  sub_dropped("required", t->sub_group_required_level, edits.carries_sub_group_required_topology);
  sub_dropped("preferred", t->sub_group_preferred_level, edits.carries_sub_group_preferred_topology);
  return out;
}

std::vector<std::string> topology_writes(const ProfileEdits& edits, const view::WorkloadView& view) {
  std::vector<std::string> out;
  TemplateValues values;
  set_topology(values, first_topology(view));
  const std::string group =
      view.gangs.empty() ? view.name : view::gang_object_name(view.name, view.gangs, view.gangs[0]);
  values.group = group;
  const std::pair<const char*, const TemplatePairs*> lists[] = {{"podLabels", &edits.pod_labels},
                                                                {"podAnnotations", &edits.pod_annotations},
                                                                {"workloadLabels", &edits.workload_labels},
                                                                {"workloadAnnotations", &edits.workload_annotations},
                                                                {"subGroupAnnotations", &edits.sub_group_annotations}};
  for (const auto& [where, list] : lists)
    for (const auto& [key, t] : *list)
      if (t.about_topology() && (list != &edits.sub_group_annotations || !view.sub_group_metadata.empty()))
        if (std::string value = t.render(values); !value.empty())
          out.push_back(std::string(where) + " " + key + "=" + value);
  return out;
}

std::vector<std::string> object_levels(simdjson::dom::element object, std::string_view levels) {
  std::vector<std::string> out;
  json::for_each_at(object, levels, [&](simdjson::dom::element e) {
    std::string_view level;
    if (e.get_string().get(level) == simdjson::SUCCESS) out.emplace_back(level);
  });
  return out;
}

namespace {

// The names the objects of `source.named_by` give (Kueue's ResourceFlavors' spec.topologyName); nothing when the
// source has no such kind or it is not listed yet (then every topology object counts).
std::optional<std::set<std::string>> named_topologies(const TopologySource& source, const view::ReferenceStore& held) {
  const catalog::GroupVersionKind& kind = source.named_by;
  if (kind.kind.empty() || !held.holds_kind(kind.group, kind.kind)) return std::nullopt;
  std::set<std::string> names;
  simdjson::dom::parser parser;
  for (const auto& json : held.objects_of(kind.group, kind.kind)) {
    simdjson::dom::element object;
    if (parser.parse(*json).get(object) != simdjson::SUCCESS) continue;
    if (std::string_view name = json::string_at(object, source.named_by_pointer); !name.empty()) names.emplace(name);
  }
  return names;
}

}  // namespace

std::optional<std::string> missing_topology_level(const TopologySource& source, const view::ReferenceStore& held,
                                                  const catalog::TopologyConstraint& topology) {
  const catalog::GroupVersionKind& kind = source.object;
  if (kind.kind.empty() || !held.holds_kind(kind.group, kind.kind)) return std::nullopt;
  const std::string& level = topology.required_level.empty() ? topology.preferred_level : topology.required_level;
  const std::string what = kind.api_version() + " " + kind.kind;
  std::vector<std::shared_ptr<const std::string>> objects;
  if (!source.by_name)
    objects = held.objects_of(kind.group, kind.kind);
  else if (auto named = held.find(kind.group, kind.kind, "", topology.topology_name))
    objects.push_back(std::move(named));
  else
    return "no " + what + " named " + topology.topology_name + " exists";
  const std::optional<std::set<std::string>> counted = named_topologies(source, held);
  const std::string namer = source.named_by.api_version() + " " + source.named_by.kind;
  std::vector<std::string> known, unnamed_with_level;
  simdjson::dom::parser parser;
  for (const auto& json : objects) {
    simdjson::dom::element object;
    if (parser.parse(*json).get(object) != simdjson::SUCCESS) continue;
    const std::string name(json::string_at(object, "/metadata/name"));
    const std::vector<std::string> levels = object_levels(object, source.levels);
    if (counted && !counted->count(name)) {  // the scheduler never places by it
      if (std::find(levels.begin(), levels.end(), level) != levels.end()) unnamed_with_level.push_back(name);
      continue;
    }
    for (const auto& l : levels) {
      if (l == level) return std::nullopt;
      if (std::find(known.begin(), known.end(), l) == known.end()) known.push_back(l);
    }
  }
  if (!unnamed_with_level.empty()) {
    std::string names;
    for (const auto& n : unnamed_with_level) names += (names.empty() ? "" : ", ") + n;
    return "level " + level + " is only in " + what + " " + names + ", which no " + namer + " names (" +
           source.named_by_pointer + ")";
  }
  if (objects.empty()) return "no " + what + " exists";
  if (counted && known.empty()) return "no " + namer + " names a " + what + " (" + source.named_by_pointer + ")";
  std::string listed;
  for (const auto& l : known) listed += (listed.empty() ? "" : ", ") + l;
  return "level " + level + " is not among the levels of " +
         (source.by_name ? what + " " + topology.topology_name
                         : (counted ? "any " + what + " a " + namer + " names" : "any " + what)) +
         " (" + listed + ")";
}

}  // namespace wm::policy
