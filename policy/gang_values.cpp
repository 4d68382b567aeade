#include "policy/gang_values.h"

#include <algorithm>
#include <cctype>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "mapper/view/resources.h"
#include "mapper/view/view_json.h"

namespace wm::policy {

namespace {

// The pod spec of a template-shaped instance; fragmented specs have no single place for these fields.
std::optional<simdjson::dom::element> pod_spec_of(const view::InstanceView& i, simdjson::dom::element root) {
  const std::optional<std::string> at = i.pod_spec_location();
  simdjson::dom::element spec;
  if (!at || root.at_pointer(*at).get(spec) != simdjson::SUCCESS || !spec.is_object()) return std::nullopt;
  return spec;
}

void copy_field(std::string& out, simdjson::dom::element spec, const char* key, const char* empty) {
  out += ",\"";
  out += key;
  out += "\":";
  simdjson::dom::element value;
  if (spec.get_object().value_unsafe().at_key(key).get(value) == simdjson::SUCCESS && !value.is_null())
    out += simdjson::to_string(value);
  else
    out += empty;
}

}  // namespace

std::string task_groups_json(const std::vector<view::GangMember>& members, simdjson::dom::element root) {
  // Pods name their task group by their template ({{instance}}), and a template shared by several members (a
  // LeaderWorkerSet without a leaderTemplate) is written by each in turn, so its pods name the last: one task group
  // for them, with all of their minimums. Otherwise YuniKorn keeps placeholders for a group no pod names.
  struct TaskGroup {
    const view::InstanceView* instance;
    long long min_member;
  };
  std::vector<TaskGroup> groups;
  for (const auto& m : members) {
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const TaskGroup& t) { return t.instance->location == m.instance->location; });
    if (same == groups.end()) {
      groups.push_back({m.instance, m.min_member});
    } else {
      same->instance = m.instance;
      same->min_member += m.min_member;
    }
  }
  std::string out = "[";
  for (const auto& t : groups) {
    // YuniKorn refuses a task group of minMember 0, and with it the app's whole gang (yunikorn-k8shim
    // GetTaskGroupsFromAnnotation: "can't get taskGroup MinMember"). Pods that need no placeholder keep naming their
    // group, as the Spark operator's executors do when it leaves theirs out (internal/scheduler/yunikorn).
    if (t.min_member <= 0) continue;
    if (out.size() > 1) out.push_back(',');
    out += "{\"name\":";
    json::append_json_string(out, t.instance->id);
    out += ",\"minMember\":" + std::to_string(t.min_member) + ",\"minResource\":";
    out += view::resources_json(t.instance->pod_requests);
    if (auto spec = pod_spec_of(*t.instance, root)) {
      copy_field(out, *spec, "nodeSelector", "{}");
      copy_field(out, *spec, "tolerations", "[]");
    }
    out.push_back('}');
  }
  return out + "]";
}

std::string task_min_members_json(const std::vector<view::GangMember>& members) {
  // Pods name their task by their template ({{instance}}), so members that share one template (a LeaderWorkerSet
  // without a leaderTemplate: leader and workers) all name one task, and a minimum per member asks for pods that
  // never come: Volcano's gang check fails for ever ("Not enough valid pods of each task"). No task minimums then.
  // So too for members whose pod annotations (or labels) are one field (an Argo Workflow's spec.podMetadata).
  auto one_task = [](const view::InstanceView& a, const view::InstanceView& b) {
    return a.location == b.location || (a.fields.annotations && a.fields.annotations == b.fields.annotations) ||
           (a.fields.labels && a.fields.labels == b.fields.labels);
  };
  for (size_t a = 0; a < members.size(); ++a)
    for (size_t b = a + 1; b < members.size(); ++b)
      if (one_task(*members[a].instance, *members[b].instance)) return {};
  std::string out = "{";
  for (const auto& m : members) {
    if (out.size() > 1) out.push_back(',');
    json::append_json_string(out, m.instance->id);
    out += ":" + std::to_string(m.min_member);
  }
  return out + "}";
}

std::string first_priority_class(const view::WorkloadView& view, simdjson::dom::element root) {
  std::string_view name;
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      if (i.fields.priority_class_name &&
          root.at_pointer(*i.fields.priority_class_name).get_string().get(name) == simdjson::SUCCESS && !name.empty())
        return std::string(name);
  return {};
}

namespace {

// A gang's name as a DNS label (a Workload's template names must be: lower case, letters, digits and '-', at most 63,
// no dots, where a wrapped component's gang is "<wrapped>.<gang>"), kept apart from the names before it.
std::vector<std::string> template_names(const std::vector<std::string>& gang_names) {
  std::vector<std::string> out;
  for (const auto& gang : gang_names) {
    std::string name;
    for (char c : gang) {
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      name.push_back((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') ? l : '-');
    }
    if (name.size() > 56) name.resize(56);  // room for a "-<n>" that tells two apart
    while (!name.empty() && name.back() == '-') name.pop_back();
    while (!name.empty() && name.front() == '-') name.erase(name.begin());
    if (name.empty()) name = "gang";
    const std::string base = name;
    for (int n = 2; std::find(out.begin(), out.end(), name) != out.end(); ++n) name = base + "-" + std::to_string(n);
    out.push_back(name);
  }
  return out;
}

}  // namespace

std::string no_workload_object(const WorkloadTemplate& workload, const view::WorkloadView& view) {
  const size_t max = workload.max_pod_group_templates;
  const auto gangs = static_cast<size_t>(std::count_if(
      view.gangs.begin(), view.gangs.end(), [](const view::GangGroupView& g) { return !g.made_by_operator; }));
  if (!max || gangs <= max) return {};
  const auto& kind = workload.object.object_kind();
  return "its " + std::to_string(gangs) + " gangs are more than the " + std::to_string(max) + " one " +
         (kind ? kind->kind : std::string("workload object")) + " holds: each gang's PodGroup stands alone";
}

namespace {

// A gang workload-map makes objects for, with what its templates need beyond the workload's values.
struct OurGang {
  const view::GangGroupView* gang;
  std::string resources, task_mins, template_name;
};

// The workload's values; views of `view`, `root`, the names and `priority_class`, which the caller keeps.
TemplateValues workload_values(const view::WorkloadView& view, simdjson::dom::element root,
                               const std::string& workload_name, const std::string& queue,
                               const std::string& priority_class) {
  TemplateValues values;
  values.name = workload_name;
  values.namespace_name = view.namespace_name;
  values.kind = view.gvk.kind;
  values.api_group = json::split_api_version(json::string_at(root, "/apiVersion")).first;
  values.object_name = view.name;
  values.queue = queue;
  values.priority_class_name = priority_class;
  values.pods = view.total_pods;
  values.gpus = view::gpu_count(view.total_requests);
  return values;
}

std::vector<OurGang> our_gangs(const view::WorkloadView& view, view::GangRule rule) {
  std::vector<OurGang> ours;
  for (const auto& g : view.gangs) {
    if (g.made_by_operator) continue;  // the operator makes its own gangs' objects
    auto members = view::gang_members(g, view.components, rule);
    ours.push_back({&g, view::resources_json(view::gang_min_resources(members)), task_min_members_json(members), ""});
  }
  return ours;
}

// The workload object with an entry per gang; names each gang's entry (its template_name).
std::string workload_object(const WorkloadTemplate& workload, std::vector<OurGang>& ours, TemplateValues values) {
  std::vector<std::string> gang_names;
  for (const auto& g : ours) gang_names.push_back(g.gang->name);
  const std::vector<std::string> names = template_names(gang_names);
  std::string entries = "[";
  for (size_t i = 0; i < ours.size(); ++i) {
    ours[i].template_name = names[i];
    values.gang_size = ours[i].gang->min_member;
    values.gang_template = ours[i].template_name;
    set_topology(values, ours[i].gang->topology ? &*ours[i].gang->topology : nullptr);
    if (i) entries.push_back(',');
    entries += workload.pod_group_template.render_json(values, {ours[i].resources, ours[i].task_mins});
  }
  entries.push_back(']');
  values.gang_size = 0;
  values.gang_template = {};
  set_topology(values, nullptr);
  return workload.object.render_json(values, {{}, {}, entries});
}

std::string object_name(const std::string& object_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element made;
  if (parser.parse(object_json).get(made) != simdjson::SUCCESS) return {};
  return std::string(json::string_at(made, "/metadata/name"));
}

}  // namespace

GangObjects gang_objects(const ObjectTemplate* pod_group, const WorkloadTemplate* workload,
                         const view::WorkloadView& view, view::GangRule rule, simdjson::dom::element root,
                         const std::string& workload_name, const std::string& queue) {
  GangObjects out;
  if (!pod_group && !workload) return out;
  const std::string priority_class = first_priority_class(view, root);
  TemplateValues values = workload_values(view, root, workload_name, queue, priority_class);
  std::vector<OurGang> ours = our_gangs(view, rule);
  if (workload) out.no_workload = no_workload_object(*workload, view);
  if (workload && out.no_workload.empty() && !ours.empty()) out.workload = workload_object(*workload, ours, values);
  if (!pod_group) return out;
  // Only a workload object that was made is named by the PodGroups.
  const std::string made_workload = out.workload.empty() ? std::string() : object_name(out.workload);
  values.workload_object = made_workload;
  for (const auto& [g, resources, task_mins, template_name] : ours) {
    const std::string name = view::gang_object_name(workload_name, view.gangs, *g);
    values.gang_size = g->min_member;
    values.gang_template = template_name;  // "" unless the workload object is made
    set_topology(values, g->topology ? &*g->topology : nullptr);
    if (g->replica_key_path.empty()) {
      values.group = name;
      out.pod_groups.push_back(pod_group->render_json(values, {resources, task_mins}));
      continue;
    }
    // One per replica, named as each pod's admission names its copy: "<name>-<replica key>". The replica keys of the
    // catalog's replicated kinds are the replica's index (LeaderWorkerSet's group-index, Grove's replica-index).
    for (long long r = 0; r < g->copies; ++r) {
      const std::string copy = name + "-" + std::to_string(r);
      values.group = copy;
      out.pod_groups.push_back(pod_group->render_json(values, {resources, task_mins}));
    }
  }
  return out;
}

}  // namespace wm::policy
