#include "controllers/pod_groups.h"

#include <simdjson.h>

#include <tuple>

#include "base/json/json_read.h"
#include "controllers/cluster_metrics.h"
#include "controllers/dropped_fields.h"
#include "kube/backoff.h"
#include "kube/reflector.h"
#include "kube/trim.h"
#include "policy/keys.h"

namespace wm::controllers {

namespace {

// A workload's key in objects_ and the queue: [group/]kind|namespace/name.
std::string workload_key(const std::string& kind_key, std::string_view namespace_name, std::string_view name) {
  return kind_key + "|" + std::string(namespace_name) + "/" + std::string(name);
}

// A workload's key, [group/]kind|namespace/name, as kind, namespace and name (workload_key's parts); empty when it
// is not one.
std::tuple<std::string, std::string, std::string> split_key(const std::string& key) {
  const size_t bar = key.find('|');
  const size_t slash = bar == std::string::npos ? std::string::npos : key.find('/', bar);
  if (slash == std::string::npos) return {};
  const size_t group_end = key.rfind('/', bar);
  const size_t kind_at = group_end == std::string::npos ? 0 : group_end + 1;
  return {key.substr(kind_at, bar - kind_at), key.substr(bar + 1, slash - bar - 1), key.substr(slash + 1)};
}

}  // namespace

PodGroupController::~PodGroupController() { watchers_.stop_all(); }

void PodGroupController::watch_kind(const catalog::GroupVersionKind& gvk, const std::atomic<bool>& stop) {
  const std::string kind_key = (gvk.group.empty() ? "" : gvk.group + "/") + gvk.kind;
  const std::optional<kube::Resource> resource =
      cluster_.discovery.find_once_served(gvk.group, gvk.version, gvk.kind, stop, [&](const std::string& error) {
        cluster_.log.log(LogLevel::Warn, "cannot watch a workload kind yet (retrying)",
                         {{"kind", kind_key}, {"problem", error}});
      });
  if (!resource) return;
  const std::string resource_name = resource->plural + (gvk.group.empty() ? "" : "." + gvk.group);
  kube::Reflector reflector(
      cluster_.api, {resource->path(), resource->api_version(), gvk.kind, std::string(kProfileLabel)},
      {[&](std::vector<std::string> objects) { relisted(kind_key, objects); },
       [&](kube::EventType type, const std::string& object) { changed(kind_key, type, object); },
       [&](const std::string& problem) {
         report_watch_failed(cluster_.metrics, cluster_.log, resource_name, problem, "PodGroups of this kind");
       },
       [&] {
         report_watch_live(cluster_.metrics, resource_name);
         // The API server answers again: workloads whose writes failed meanwhile are retried now,
         // not at the end of a back-off grown through the outage (up to a minute).
         std::vector<std::string> failed;
         {
           std::lock_guard lock(applied_mutex_);
           for (const auto& [key, backoff] : backoff_) failed.push_back(key);
         }
         for (const auto& key : failed) queue_.add(key);
       }});
  cluster_.log.log(LogLevel::Info, "watching workloads for PodGroups", {{"resource", resource_name}});
  reflector.run(stop);
}

// After a (re)list of one kind: its workloads now, and those gone since, are queued.
void PodGroupController::relisted(const std::string& kind_key, const std::vector<std::string>& objects) {
  std::map<std::string, std::string> listed;
  simdjson::dom::parser parser;
  for (const auto& o : objects) {
    simdjson::dom::element e;
    if (parser.parse(o).get(e) == simdjson::SUCCESS)
      listed[workload_key(kind_key, json::string_at(e, "/metadata/namespace"), json::string_at(e, "/metadata/name"))] =
          kube::without_managed_fields(e);
  }
  std::vector<std::string> keys;
  {
    std::lock_guard lock(mutex_);
    for (auto it = objects_.begin(); it != objects_.end();) {
      const bool this_kind = it->first.compare(0, kind_key.size() + 1, kind_key + "|") == 0;
      if (this_kind && !listed.count(it->first)) {
        keys.push_back(it->first);
        it = objects_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& [key, o] : listed) {
      keys.push_back(key);
      objects_[key] = std::move(o);
    }
  }
  for (const auto& k : keys) queue_.add(k);
}

void PodGroupController::changed(const std::string& kind_key, kube::EventType type, const std::string& object) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (parser.parse(object).get(e) != simdjson::SUCCESS) return;
  const std::string key =
      workload_key(kind_key, json::string_at(e, "/metadata/namespace"), json::string_at(e, "/metadata/name"));
  {
    std::lock_guard lock(mutex_);
    if (type == kube::EventType::Deleted)
      objects_.erase(key);
    else
      objects_[key] = kube::without_managed_fields(e);
  }
  queue_.add(key);
}

void PodGroupController::references_changed() {
  std::lock_guard lock(mutex_);
  for (const auto& key : waiting_) queue_.add(key);
}

void PodGroupController::watch(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    watchers_.sync(kinds_needing_pod_groups(cluster_.state.current()));
    kube::sleep_unless_stopped(std::chrono::seconds(2), stop);
  }
  watchers_.stop_all();
}

void PodGroupController::leadership_changed(bool leading) {
  {
    std::lock_guard lock(applied_mutex_);
    applied_.clear();  // a new leader lists what exists before it writes
  }
  std::lock_guard lock(mutex_);
  if (leading)
    for (const auto& [key, object] : objects_) queue_.add(key);
}

Result<std::set<PodGroupPlace>> PodGroupController::existing(const std::string& object_uid,
                                                             const std::set<std::string>& resource_paths) {
  std::set<PodGroupPlace> out;
  simdjson::dom::parser parser;
  for (const auto& path : resource_paths) {
    kube::Response r = cluster_.api.request(
        "GET", path + "?labelSelector=" + kube::url_encode(std::string(kOwnerUidLabel) + "=" + object_uid));
    if (!r.ok()) return r.failure("list " + path);
    simdjson::dom::element list;
    simdjson::dom::array items;
    if (parser.parse(r.body).get(list) || list["items"].get_array().get(items))
      return Error{"list " + path + ": not a list", ErrorCode::Unavailable};
    for (auto item : items) out.emplace(path, json::string_at(item, "/metadata/name"));
  }
  return out;
}

Result<void> PodGroupController::reconcile_one(const std::string& key) {
  std::string json;
  {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(key);
    if (it != objects_.end()) json = it->second;
  }
  if (json.empty()) {
    forget(key);
    return {};
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return Error{"not JSON", ErrorCode::Internal};
  const Result<DesiredPodGroups> desired = plan_pod_groups(cluster_.state.current(), root, cluster_.discovery.finder());
  if (!desired) {
    report_failure(key, root, desired.failure());
    return desired.failure();
  }
  if (waits(key, root, desired->waits_for)) return {};

  std::shared_ptr<Applied> held;
  {
    std::lock_guard lock(applied_mutex_);
    std::shared_ptr<Applied>& entry = applied_[key];
    if (!entry) entry = std::make_shared<Applied>();
    held = entry;
  }
  Applied& applied = *held;
  // The first time this leader sees the workload it knows nothing of what a previous leader wrote: it applies what
  // should exist first (the PodGroup appears one round trip sooner), then lists what exists to delete the rest.
  const std::string uid(json::string_at(root, "/metadata/uid"));
  const bool first_look = applied.uid != uid;
  if (first_look) applied = Applied{uid, {}};
  PodGroupWrites writes = plan_pod_group_writes(*desired, applied.objects);
  // Said with the writes it explains (the gangs' PodGroups, standing alone), not on every look.
  if (!desired->no_workload.empty() && !writes.apply.empty()) {
    cluster_.log.log(LogLevel::Warn, "no workload object for a workload",
                     {{"workload", key}, {"problem", desired->no_workload}});
    cluster_.events.warning(reference_to(root), "NoWorkloadObject", desired->no_workload);
  }
  if (auto done = apply(key, root, writes, applied); !done) return done;
  if (first_look) {  // what was adopted may hold PodGroups to delete: planned again
    if (auto adopted = adopt(uid, *desired, applied); !adopted) {
      cluster_.log.log(LogLevel::Warn, "cannot list a workload's PodGroups (retrying)",
                       {{"workload", key}, {"problem", adopted.error()}});
      return adopted;
    }
    writes = plan_pod_group_writes(*desired, applied.objects);
  }
  return prune(key, root, writes, applied);
}

// Notes (once) or clears that the workload's plan waits for a referenced object; true while it does.
bool PodGroupController::waits(const std::string& key, simdjson::dom::element root, const std::string& waits_for) {
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    if (waits_for.empty()) {
      waiting_.erase(key);
      return false;
    }
    first = waiting_.insert(key).second;
  }
  if (first) {  // said once: it is looked at again when a referenced object comes, not on a timer
    cluster_.log.log(LogLevel::Warn, "a workload's PodGroups wait for an object it refers to",
                     {{"workload", key}, {"problem", waits_for}});
    cluster_.events.warning(reference_to(root), "PodGroupsWaiting", "its PodGroups wait: " + waits_for);
  }
  return true;
}

// Said where the operator looks: the log, and for what the workload's owner can act on, an Event on it and a count.
void PodGroupController::report_failure(const std::string& key, simdjson::dom::element root, const Error& error) {
  if (error.code == ErrorCode::Invalid) {  // its kind or profile left the catalog or policy: nothing to write
    cluster_.log.log(LogLevel::Warn, "no PodGroups for a workload", {{"workload", key}, {"problem", error.message}});
    return;
  }
  const bool retry = retryable(error.code);
  cluster_.log.log(retry ? LogLevel::Warn : LogLevel::Error,
                   retry ? "cannot make a PodGroup (retrying)" : "cannot make a PodGroup",
                   {{"workload", key}, {"problem", error.message}});
  cluster_.events.warning(reference_to(root), "PodGroupFailed", "cannot make its PodGroups: " + error.message);
  if (retry)
    cluster_.metrics.add_counter(kPodGroupErrorsMetric, {{"kind", std::string(json::string_at(root, "/kind"))}});
}

// A deleted workload: its PodGroups go with it (owner references); what this leader kept of it goes now.
void PodGroupController::forget(const std::string& key) {
  {
    std::lock_guard lock(applied_mutex_);
    applied_.erase(key);
    backoff_.erase(key);
  }
  {
    std::lock_guard lock(mutex_);
    waiting_.erase(key);
  }
  if (auto [kind, namespace_name, name] = split_key(key); !kind.empty())
    cluster_.events.forget(kind, namespace_name, name);
}

namespace {

// "podgroup/train", "workload/train": the object a write is about, as kubectl names it, for logs and Events.
std::string object_named(const PodGroupPlace& place) {
  std::string plural = place.first.substr(place.first.rfind('/') + 1);
  if (plural.size() > 1 && plural.back() == 's') plural.pop_back();
  return plural + "/" + place.second;
}

}  // namespace

// An object the API server refuses (4xx: invalid, or an immutable field an earlier version set) does not hold back the
// workload's other objects: a gang added later must not wait on an old one that cannot change. Any other failure (the
// API server unreachable, 5xx) stops at once, as the next would fail the same way. Either is retried.
Result<void> PodGroupController::apply(const std::string& key, simdjson::dom::element root,
                                       const PodGroupWrites& writes, Applied& applied) {
  const std::string kind(json::string_at(root, "/kind"));
  Result<void> outcome;
  for (const auto& [place, body] : writes.apply) {
    const std::string object = object_named(place);
    kube::Response r = cluster_.api.request(
        "PATCH", place.first + "/" + kube::url_encode(place.second) + "?fieldManager=workload-map&force=true", *body,
        kube::kApplyPatch);
    if (!r.ok()) {
      cluster_.log.log(LogLevel::Warn, "cannot apply a PodGroup (retrying)",
                       {{"workload", key}, {"podGroup", object}, {"problem", r.describe()}});
      cluster_.events.warning(reference_to(root), "PodGroupFailed", "cannot apply " + object + ": " + r.describe());
      cluster_.metrics.add_counter(kPodGroupErrorsMetric, {{"kind", kind}});
      applied.uid.clear();
      if (outcome) outcome = r.failure_to_retry("apply " + object);
      if (r.status >= 400 && r.status < 500) continue;
      return outcome;
    }
    // An apply answers 201 when it created the object. A 200 on first look is one a previous leader wrote, which
    // this one only re-asserts: no Event.
    const bool created = r.status == 201, updated = !created && applied.objects.count(place);
    if (created || updated)
      cluster_.events.normal(reference_to(root), created ? "PodGroupCreated" : "PodGroupUpdated",
                             (created ? "created " : "updated ") + object);
    // Said once per write: what the profile wrote and the API server did not keep never reaches the scheduler.
    if (const auto dropped = dropped_fields(*body, r.body); !dropped.empty()) {
      std::string fields;
      for (const auto& f : dropped) fields += (fields.empty() ? "" : ", ") + f;
      const std::string why = "the API server did not keep " + fields + " of " + object +
                              " (a field its version or feature gates do not serve): its scheduler never sees it";
      cluster_.log.log(LogLevel::Warn, "fields of a PodGroup not kept", {{"workload", key}, {"problem", why}});
      cluster_.events.warning(reference_to(root), "PodGroupFieldsDropped", why);
    }
    applied.objects[place] = *body;
    cluster_.metrics.add_counter(kPodGroupsAppliedMetric, {{"kind", kind}});
    cluster_.log.log(LogLevel::Info, "PodGroup applied", {{"workload", key}, {"podGroup", object}});
  }
  return outcome;
}

Result<void> PodGroupController::adopt(const std::string& uid, const DesiredPodGroups& desired, Applied& applied) {
  // From the watches of PodGroups once they have listed; until then from the API server.
  std::set<PodGroupPlace> watched;
  bool all_watched = true;
  for (const auto& [path, resource] : desired.resources) {
    auto owned = owned_.of(resource, uid);
    if (!owned) {
      all_watched = false;
      break;
    }
    watched.insert(owned->begin(), owned->end());
  }
  Result<std::set<PodGroupPlace>> found = std::move(watched);
  if (!all_watched) {
    std::set<std::string> paths;
    for (const auto& [path, resource] : desired.resources) paths.insert(path);
    found = existing(uid, paths);
  }
  if (!found) {  // what to delete is unknown: look again on the retry
    applied.uid.clear();
    return found.failure();
  }
  for (const auto& place : *found) applied.objects.try_emplace(place, "");
  return {};
}

Result<void> PodGroupController::prune(const std::string& key, simdjson::dom::element root,
                                       const PodGroupWrites& writes, Applied& applied) {
  const std::string kind(json::string_at(root, "/kind"));
  for (const auto& place : writes.remove) {
    const std::string object = object_named(place);
    kube::Response r = cluster_.api.request("DELETE", place.first + "/" + kube::url_encode(place.second));
    if (!r.ok() && r.status != 404) {
      cluster_.log.log(LogLevel::Warn, "cannot delete a PodGroup its workload no longer has (retrying)",
                       {{"workload", key}, {"podGroup", object}, {"problem", r.describe()}});
      return r.failure_to_retry("delete " + object);
    }
    cluster_.metrics.add_counter(kPodGroupsDeletedMetric, {{"kind", kind}});
    cluster_.log.log(LogLevel::Info, "PodGroup deleted", {{"workload", key}, {"podGroup", object}});
    cluster_.events.normal(reference_to(root), "PodGroupDeleted", "deleted " + object + ": its gang is gone");
    applied.objects.erase(place);
  }
  return {};
}

void PodGroupController::reconcile(const std::atomic<bool>& stop, const std::atomic<bool>& leading) {
  std::string key;
  while (queue_.next(key, stop)) {
    const WorkQueue::Holding holding(queue_, key);
    if (!leading.load()) continue;  // leadership_changed() queues everything again for a new leader
    const Result<void> outcome = reconcile_one(key);
    const bool reconciled = outcome || !retryable(outcome.code());
    std::chrono::milliseconds delay{};
    {
      std::lock_guard lock(applied_mutex_);
      if (reconciled)
        backoff_.erase(key);
      else  // 2 s doubling to about a minute, jittered
        delay = backoff_.try_emplace(key, std::chrono::seconds(2), std::chrono::seconds(64)).first->second.next();
    }
    if (!reconciled) queue_.add(key, delay);
  }
}

}  // namespace wm::controllers
