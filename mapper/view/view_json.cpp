#include "mapper/view/view_json.h"

#include "base/json/json_writer.h"
#include "mapper/view/gangs.h"

namespace wm::view {

namespace {

using json::JsonWriter;

constexpr size_t kMaxGangsShown = 10000;

void strings(JsonWriter& w, const char* key, const std::vector<std::string>& list) {
  w.key(key).begin_array();
  for (const auto& s : list) w.value(s);
  w.end_array();
}

void topology(JsonWriter& w, const std::optional<catalog::TopologyConstraint>& t) {
  if (!t) return;
  w.key("topology").begin_object().field("topologyName", t->topology_name);
  if (!t->required_level.empty()) w.field("requiredTopologyLevel", t->required_level);
  if (!t->preferred_level.empty()) w.field("preferredTopologyLevel", t->preferred_level);
  if (t->has_sub_group_levels()) {
    w.key("subGroups").begin_object();
    if (!t->sub_group_required_level.empty()) w.field("requiredTopologyLevel", t->sub_group_required_level);
    if (!t->sub_group_preferred_level.empty()) w.field("preferredTopologyLevel", t->sub_group_preferred_level);
    w.end_object();
  }
  w.end_object();
}

void gang(JsonWriter& w, const GangGroupView& g) {
  w.begin_object().field("name", g.name);
  strings(w, "members", g.members);
  w.field("minMember", g.min_member).field("pods", g.pods);
  if (g.min_sub_groups) w.field("minSubGroups", *g.min_sub_groups);
  if (g.made_by_operator) w.field("madeByOperator", true);
  topology(w, g.topology);
  w.key("subGroups").begin_array();
  for (const auto& s : g.sub_groups) {
    w.begin_object().field("name", s.name).field("component", s.component).field("minMember", s.min_member);
    topology(w, s.topology);
    w.end_object();
  }
  w.end_array().end_object();
}

void instance(JsonWriter& w, const InstanceView& inst) {
  w.begin_object().field("id", inst.id).field("shape", shape_name(inst.shape));
  if (inst.shape != PodShape::Logical) w.field("location", inst.location);
  w.field("replicas", inst.replicas);
  if (inst.min_replicas) w.field("minReplicas", *inst.min_replicas);
  if (inst.max_replicas) w.field("maxReplicas", *inst.max_replicas);
  w.field("pods", inst.pods);
  if (inst.shape != PodShape::Logical) {
    w.key("podRequests").raw(resources_json(inst.pod_requests));
    w.key("requests").raw(resources_json(inst.total_requests));
  }
  if (inst.scheduler_name) w.field("schedulerName", *inst.scheduler_name);
  w.end_object();
}

void component(JsonWriter& w, const ComponentView& c) {
  w.begin_object().field("name", c.name);
  if (c.kind) w.field("kind", c.kind->str());
  if (!c.owner.empty()) w.field("owner", c.owner);
  w.key("instances").begin_array();
  for (const auto& inst : c.instances) instance(w, inst);
  w.end_array().end_object();
}

void uncounted(JsonWriter& w, const std::vector<UncountedDevices>& devices) {
  if (devices.empty()) return;
  w.key("uncountedDevices").begin_array();
  for (const auto& d : devices) {
    w.begin_object().field("what", d.what);
    strings(w, "resources", d.resources);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string gangs_json(const std::vector<GangGroupView>& gangs) {
  JsonWriter w;
  w.begin_array();
  for (const auto& g : gangs) gang(w, g);
  return w.end_array().take();
}

std::string resources_json(const ResourceList& list) {
  std::string out = "{";
  for (const auto& [name, q] : list) {
    if (out.size() > 1) out.push_back(',');
    json::append_json_string(out, name);
    out.push_back(':');
    json::append_json_string(out, q.str(is_byte_resource(name)));
  }
  return out + "}";
}

std::string view_json(const WorkloadView& view) {
  JsonWriter w;
  w.begin_object().field("apiVersion", view.gvk.api_version()).field("kind", view.gvk.kind);
  w.field("name", view.name).field("namespace", view.namespace_name);
  if (!view.generate_name.empty()) w.field("generateName", view.generate_name);
  w.field("definition", view.definition ? view.definition->name : "").field("pods", view.total_pods);
  w.key("requests").raw(resources_json(view.total_requests));
  w.key("components").begin_array();
  for (const auto& c : view.components) component(w, c);
  w.end_array();
  w.key("gangs").begin_array();
  for (const auto& g : expanded_gangs(view.gangs, kMaxGangsShown)) gang(w, g);
  w.end_array();
  uncounted(w, view.uncounted_devices);
  if (!view.unresolved_references.empty()) strings(w, "unresolvedReferences", view.unresolved_references);
  if (!view.phases.empty()) strings(w, "phases", view.phases);
  strings(w, "problems", view.problems);
  return w.end_object().take();
}

}  // namespace wm::view
