#include "mapper/view/view_json.h"

#include "base/json/json_writer.h"
#include "mapper/view/gangs.h"

namespace wm::view {

namespace {

void key(std::string& out, const char* k) {
  if (out.back() != '{') out.push_back(',');
  json::append_json_string(out, k);
  out.push_back(':');
}

void string_field(std::string& out, const char* k, const std::string& v) {
  key(out, k);
  json::append_json_string(out, v);
}

void number_field(std::string& out, const char* k, long long v) {
  key(out, k);
  out += std::to_string(v);
}

void strings(std::string& out, const char* k, const std::vector<std::string>& list) {
  key(out, k);
  out.push_back('[');
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out.push_back(',');
    json::append_json_string(out, list[i]);
  }
  out.push_back(']');
}

void topology_field(std::string& out, const std::optional<catalog::TopologyConstraint>& t) {
  if (!t) return;
  key(out, "topology");
  out.push_back('{');
  string_field(out, "topologyName", t->topology_name);
  if (!t->required_level.empty()) string_field(out, "requiredTopologyLevel", t->required_level);
  if (!t->preferred_level.empty()) string_field(out, "preferredTopologyLevel", t->preferred_level);
  out.push_back('}');
}

constexpr size_t kMaxGangsShown = 10000;

}  // namespace

std::string gangs_json(const std::vector<GangGroupView>& gangs) {
  std::string out = "[";
  for (size_t i = 0; i < gangs.size(); ++i) {
    const GangGroupView& g = gangs[i];
    if (i) out.push_back(',');
    out.push_back('{');
    string_field(out, "name", g.name);
    strings(out, "members", g.members);
    number_field(out, "minMember", g.min_member);
    number_field(out, "pods", g.pods);
    if (g.min_sub_groups) number_field(out, "minSubGroups", *g.min_sub_groups);
    if (g.made_by_operator) out += ",\"madeByOperator\":true";
    topology_field(out, g.topology);
    key(out, "subGroups");
    out.push_back('[');
    for (size_t j = 0; j < g.sub_groups.size(); ++j) {
      if (j) out.push_back(',');
      out.push_back('{');
      string_field(out, "name", g.sub_groups[j].name);
      string_field(out, "component", g.sub_groups[j].component);
      number_field(out, "minMember", g.sub_groups[j].min_member);
      topology_field(out, g.sub_groups[j].topology);
      out.push_back('}');
    }
    out += "]}";
  }
  return out + "]";
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
  std::string out = "{";
  string_field(out, "apiVersion", view.gvk.api_version());
  string_field(out, "kind", view.gvk.kind);
  string_field(out, "name", view.name);
  string_field(out, "namespace", view.namespace_name);
  if (!view.generate_name.empty()) string_field(out, "generateName", view.generate_name);
  string_field(out, "definition", view.definition ? view.definition->name : "");
  number_field(out, "pods", view.total_pods);
  key(out, "requests");
  out += resources_json(view.total_requests);
  key(out, "components");
  out.push_back('[');
  bool first_component = true;
  for (const auto& c : view.components) {
    if (!first_component) out.push_back(',');
    first_component = false;
    out.push_back('{');
    string_field(out, "name", c.name);
    if (c.kind) string_field(out, "kind", c.kind->str());
    if (!c.owner.empty()) string_field(out, "owner", c.owner);
    key(out, "instances");
    out.push_back('[');
    for (size_t i = 0; i < c.instances.size(); ++i) {
      const InstanceView& inst = c.instances[i];
      if (i) out.push_back(',');
      out.push_back('{');
      string_field(out, "id", inst.id);
      string_field(out, "shape", shape_name(inst.shape));
      if (inst.shape != PodShape::Logical) string_field(out, "location", inst.location);
      number_field(out, "replicas", inst.replicas);
      if (inst.min_replicas) number_field(out, "minReplicas", *inst.min_replicas);
      if (inst.max_replicas) number_field(out, "maxReplicas", *inst.max_replicas);
      number_field(out, "pods", inst.pods);
      if (inst.shape != PodShape::Logical) {
        key(out, "podRequests");
        out += resources_json(inst.pod_requests);
        key(out, "requests");
        out += resources_json(inst.total_requests);
      }
      if (inst.scheduler_name) string_field(out, "schedulerName", *inst.scheduler_name);
      out.push_back('}');
    }
    out += "]}";
  }
  out.push_back(']');
  key(out, "gangs");
  out += gangs_json(expanded_gangs(view.gangs, kMaxGangsShown));
  if (!view.uncounted_devices.empty()) {
    key(out, "uncountedDevices");
    out.push_back('[');
    for (size_t i = 0; i < view.uncounted_devices.size(); ++i) {
      if (i) out.push_back(',');
      out.push_back('{');
      string_field(out, "what", view.uncounted_devices[i].what);
      strings(out, "resources", view.uncounted_devices[i].resources);
      out.push_back('}');
    }
    out.push_back(']');
  }
  if (!view.phases.empty()) strings(out, "phases", view.phases);
  strings(out, "problems", view.problems);
  return out + "}";
}

}  // namespace wm::view
