#include "live/inventory.h"

#include <algorithm>

#include "base/json/json_read.h"
#include "mapper/view/resources.h"
#include "policy/profiled_view.h"

namespace wm::live {

namespace {

LivePod live_pod(simdjson::dom::element pod) {
  LivePod p{std::string(json::string_at(pod, "/metadata/name")),
            std::string(json::string_at(pod, "/status/phase")),
            std::string(json::string_at(pod, "/spec/nodeName")),
            {},
            {}};
  simdjson::dom::array owners;
  if (pod.at_pointer("/metadata/ownerReferences").get(owners) == simdjson::SUCCESS)
    for (simdjson::dom::element o : owners) {
      bool controller = false;
      const bool by_controller = o["controller"].get(controller) == simdjson::SUCCESS && controller;
      if (by_controller || (p.owner.empty() && json::string_member(o, "kind") == "Pod"))  // or the pod it stands in for
        p.owner = std::string(json::string_member(o, "kind")) + "/" + std::string(json::string_member(o, "name"));
    }
  json::for_each_at(pod, "/status/conditions/*", [&](simdjson::dom::element c) {
    if (json::string_member(c, "type") == "PodScheduled" && json::string_member(c, "status") == "False")
      p.waiting = std::string(json::string_member(c, "message"));
  });
  return p;
}

// The value of the first key among `templates` that writes the queue, in `metadata`'s labels or annotations.
std::string queue_in(const policy::TemplatePairs& labels, const policy::TemplatePairs& annotations,
                     simdjson::dom::element object) {
  const std::pair<const policy::TemplatePairs*, const char*> where[] = {{&labels, "labels"},
                                                                        {&annotations, "annotations"}};
  for (const auto& [templates, field] : where)
    for (const auto& [key, t] : *templates) {
      if (!t.uses("queue")) continue;
      simdjson::dom::element map;
      if (object.at_pointer(std::string("/metadata/") + field).get(map) != simdjson::SUCCESS) continue;
      if (std::string_view value = json::string_member(map, key); !value.empty()) return std::string(value);
    }
  return {};
}

void read_pods(const Snapshot& snapshot, LiveWorkload& w) {
  for (size_t i : w.tree.pods) {
    simdjson::dom::element pod = snapshot.pods[i];
    w.pod_list.push_back(live_pod(pod));
    const LivePod& p = w.pod_list.back();
    ++w.pods.existing;
    if (!p.node.empty()) ++w.pods.scheduled;
    if (p.phase == "Running") ++w.pods.running;
    if (w.scheduler.empty()) w.scheduler = std::string(json::string_at(pod, "/spec/schedulerName"));
  }
  for (size_t i : w.tree.stand_ins) {
    w.pod_list.push_back(live_pod(snapshot.pods[i]));
    w.pod_list.back().stand_in = true;
  }
}

void read_gangs(const Snapshot& snapshot, const policy::SchedulerProfile* profile, LiveWorkload& w) {
  if (profile && !profile->gang_status.object.kind.empty())
    for (size_t g : w.tree.gang_objects) {
      const LiveObject& o = snapshot.gang_objects[g];
      const auto [group, version] = json::split_api_version(o.api_version);
      if (o.kind != profile->gang_status.object.kind || group != profile->gang_status.object.group) continue;
      w.gangs.push_back(gang_state(profile->gang_status, o));
    }
  // As the scheduler's objects say where each says, else as the view counts.
  const bool recorded = !w.gangs.empty() && std::all_of(w.gangs.begin(), w.gangs.end(),
                                                        [](const GangState& g) { return g.min_member.has_value(); });
  for (const auto& g : w.gangs) w.gang_minimum += recorded ? *g.min_member : 0;
  if (!recorded)
    for (const auto& g : w.view.gangs) w.gang_minimum += g.min_member * g.copies;
}

// The view, with the definition's phases; returns the profile's edits chosen for the object (its overrides' too).
const policy::ProfileEdits* read_view(const policy::AdmissionState& state, const policy::SchedulerProfile* profile,
                                      LiveWorkload& w) {
  const catalog::Catalog::Match match = state.catalog->find(w.api_version, w.kind);
  if (!match.definition) {
    w.view.problems.push_back("no definition reads " + w.api_version + " " + w.kind);
    return nullptr;
  }
  json::ObjectDocument doc(w.tree.root.object);
  policy::ProfiledViewRequest request;
  request.profile = profile;
  request.namespace_name = w.namespace_name;
  request.as_sent = false;
  request.status = true;
  policy::ProfiledView profiled = policy::profiled_view(state, *match.definition, doc, request);
  w.view = std::move(profiled.view);
  w.pods.expected = w.view.total_pods;
  w.gpus = view::gpu_count(w.view.total_requests);
  if (w.scheduler.empty())
    for (const auto& c : w.view.components)
      for (const auto& i : c.instances)
        if (w.scheduler.empty() && i.scheduler_name) w.scheduler = *i.scheduler_name;
  return profile ? profiled.edits : nullptr;
}

LiveWorkload live_workload(const policy::AdmissionState& state, const Snapshot& snapshot, WorkloadTree tree) {
  LiveWorkload w;
  w.api_version = tree.root.api_version;
  w.kind = tree.root.kind;
  w.namespace_name = std::string(json::string_at(tree.root.object, "/metadata/namespace"));
  w.name = std::string(json::string_at(tree.root.object, "/metadata/name"));
  w.tree = std::move(tree);
  const auto [group, version] = json::split_api_version(w.api_version);
  const policy::Rule* rule = state.policy->match(w.namespace_name, group, w.kind);
  const policy::SchedulerProfile* profile = rule ? rule->profile : nullptr;
  if (profile) w.profile = profile->name;
  read_pods(snapshot, w);
  const policy::ProfileEdits* edits = read_view(state, profile, w);
  if (w.scheduler.empty()) w.scheduler = "default-scheduler";
  if (edits) {  // where the profile writes the queue, as the object and its pods carry it now
    w.queue = queue_in(edits->workload_labels, edits->workload_annotations, w.tree.root.object);
    if (w.queue.empty() && !w.tree.pods.empty())
      w.queue = queue_in(edits->pod_labels, edits->pod_annotations, snapshot.pods[w.tree.pods[0]]);
  }
  read_gangs(snapshot, profile, w);
  const bool gang_waiting = std::any_of(w.gangs.begin(), w.gangs.end(), [](const GangState& g) { return g.waiting; });
  w.phase = live_phase(w.view.phases, w.pods, gang_waiting);
  return w;
}

}  // namespace

std::vector<LiveWorkload> live_workloads(const policy::AdmissionState& state, const Snapshot& snapshot,
                                         const std::function<bool(const LiveObject&)>& wanted) {
  std::vector<LiveWorkload> out;
  for (auto& tree : workload_trees(*state.catalog, snapshot))
    if (!wanted || wanted(tree.root)) out.push_back(live_workload(state, snapshot, std::move(tree)));
  return out;
}

std::string gang_summary(const LiveWorkload& w) {
  if (w.gang_minimum == 0 && w.gangs.empty()) return "-";
  std::string state;
  for (const auto& g : w.gangs)
    if (state.empty() || g.waiting) state = g.state;
  return std::to_string(std::min(w.pods.scheduled, w.gang_minimum)) + "/" + std::to_string(w.gang_minimum) +
         (state.empty() ? "" : " " + state);
}

}  // namespace wm::live
