#include "live/why.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/json/json_read.h"
#include "mapper/view/gangs.h"
#include "mapper/view/resources.h"

namespace wm::live {

namespace {

// The pods' words, each message once with how many pods say it.
void pods_say(const LiveWorkload& w, std::vector<Reason>& out) {
  std::vector<std::pair<std::string, std::vector<std::string>>> messages;
  for (const auto& p : w.pod_list) {
    if (p.waiting.empty()) continue;
    auto it = std::find_if(messages.begin(), messages.end(), [&](const auto& m) { return m.first == p.waiting; });
    if (it == messages.end()) it = messages.insert(messages.end(), {p.waiting, {}});
    it->second.push_back(p.name);
  }
  for (const auto& [message, pods] : messages)
    out.push_back(
        {"pod " + pods[0] + (pods.size() > 1 ? " and " + std::to_string(pods.size() - 1) + " more" : ""), message});
}

// Events on the workload, its objects, its pods and its gang objects, oldest first, each reason and message once.
void events_say(const Snapshot& snapshot, const LiveWorkload& w, std::vector<Reason>& out) {
  std::set<std::string_view> uids(w.tree.uids.begin(), w.tree.uids.end());
  for (size_t g : w.tree.gang_objects) uids.insert(json::string_at(snapshot.gang_objects[g].object, "/metadata/uid"));
  std::map<std::string, size_t> seen;
  for (simdjson::dom::element e : snapshot.events) {
    if (!uids.count(json::string_at(e, "/involvedObject/uid"))) continue;
    // Warnings, and the schedulers' own refusals, which some record as Normal (KAI's Unschedulable on a PodGroup).
    const std::string_view reason = json::string_at(e, "/reason");
    if (json::string_at(e, "/type") != "Warning" && reason.find("Unschedulable") == std::string_view::npos &&
        !reason.starts_with("Failed"))
      continue;
    const std::string source = "event " + std::string(reason) + " on " +
                               std::string(json::string_at(e, "/involvedObject/kind")) + "/" +
                               std::string(json::string_at(e, "/involvedObject/name"));
    const std::string text(json::string_at(e, "/message"));
    if (seen.emplace(source + "\n" + text, out.size()).second) out.push_back({source, text});
  }
}

// What the policy and the snapshot tell workload-map: a missing queue, an unserved gang kind, a gang too large.
void workload_map_says(const policy::AdmissionState& state, const Snapshot& snapshot, const LiveWorkload& w,
                       std::vector<Reason>& out) {
  auto say = [&](std::string text) { out.push_back({"workload-map", std::move(text)}); };
  const policy::SchedulerProfile* profile = state.policy->profile(w.profile);
  if (profile && !w.profile.empty()) {
    const catalog::GroupVersionKind& q = profile->queues.object;
    const view::ReferenceStore& held = *snapshot.references;
    if (!w.queue.empty() && !q.kind.empty() && held.holds_kind(q.group, q.kind) &&
        !held.find(q.group, q.kind, "", w.queue))
      say("queue " + w.queue + " does not exist: the cluster has no " + q.api_version() + " " + q.kind + " named so");
    const catalog::GroupVersionKind& g = profile->gang_status.object;
    if (!g.kind.empty() && snapshot.unserved_gang_kinds.count(g.group + "/" + g.kind))
      say("the cluster serves no " + g.api_version() + " " + g.kind + ": nothing records the gang for " +
          profile->name);
    else if (!g.kind.empty() && w.gangs.empty() && w.pods.scheduled < w.pods.expected)
      say("no " + g.kind +
          " records its gang yet (made by the scheduler's or workload-map's controller once admitted)");
  }
  for (const auto& gang : w.view.gangs) {
    const long long gpus =
        view::gpu_count(view::gang_min_resources(view::gang_members(gang, w.view.components, view::GangRule::Minimum)));
    if (snapshot.cluster_gpus && gpus > *snapshot.cluster_gpus)
      say("gang " + view::gang_object_name(w.name, w.view.gangs, gang) + " needs " + std::to_string(gpus) +
          " GPUs at once; the cluster's nodes have " + std::to_string(*snapshot.cluster_gpus) + " in all");
  }
  for (const auto& c : w.view.components)
    for (const auto& i : c.instances) {
      const long long gpus = view::gpu_count(i.pod_requests);
      if (snapshot.largest_node_gpus && gpus > *snapshot.largest_node_gpus)
        say("a pod of " + i.id + " asks for " + std::to_string(gpus) + " GPUs; the largest node has " +
            std::to_string(*snapshot.largest_node_gpus));
      for (const auto& breach : i.pod_rule_breaches) say("pods of " + i.id + " will be refused: " + breach);
    }
  for (const auto& u : w.view.uncounted_devices) say("devices not counted: " + u.what);
  for (const auto& p : w.view.problems) say("not understood: " + p);
}

}  // namespace

std::vector<Reason> why_waiting(const policy::AdmissionState& state, const Snapshot& snapshot, const LiveWorkload& w) {
  std::vector<Reason> said;
  for (const auto& g : w.gangs)
    for (const auto& r : g.reasons) said.push_back({g.kind + " " + g.name, r});
  pods_say(w, said);
  events_say(snapshot, w, said);
  workload_map_says(state, snapshot, w, said);
  // Each text once, from its first source: the scheduler writes the same words on its object, its pods and Events.
  std::vector<Reason> out;
  std::set<std::string_view> texts;
  for (auto& r : said)
    if (texts.insert(r.text).second) out.push_back(std::move(r));
  return out;
}

}  // namespace wm::live
