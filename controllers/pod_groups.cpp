#include "controllers/pod_groups.h"

#include <simdjson.h>

#include <tuple>

#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"
#include "kube/reflector.h"
#include "kube/trim.h"
#include "base/json/json_patch.h"
#include "mapper/expr/json_patch_apply.h"
#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "base/json/value.h"
#include "mapper/view/workload_view.h"
#include "policy/admission_state.h"
#include "policy/gang_values.h"
#include "policy/owners.h"
#include "policy/policy.h"

namespace wm::controllers {

namespace {

constexpr const char* kWatchUpHelp =
    "1 while the watch of this resource is live; 0: what the webhook knows of it may be stale.";

// The rendered object with its owner and the labels that find it again: owned by the workload (so that the garbage
// collector deletes it with the workload) and labelled with the workload's uid.
Result<std::string> owned(const std::string& object_json, simdjson::dom::element object,
                          simdjson::dom::element workload) {
  const std::string uid(json::string_at(workload, "/metadata/uid"));
  std::string owner = "[{\"apiVersion\":";
  json::append_json_string(owner, json::string_at(workload, "/apiVersion"));
  owner += ",\"kind\":";
  json::append_json_string(owner, json::string_at(workload, "/kind"));
  owner += ",\"name\":";
  json::append_json_string(owner, json::string_at(workload, "/metadata/name"));
  owner += ",\"uid\":";
  json::append_json_string(owner, uid);
  owner += "}]";
  json::JsonPatchBuilder patch(object);
  if (!patch.set("/metadata/ownerReferences", owner) ||
      !patch.merge_map("/metadata/labels", {{"app.kubernetes.io/managed-by", "workload-map"},
                                            {std::string(PodGroupController::kOwnerUidLabel), uid}}))
    return Error{patch.error()};
  return json::apply_json_patch(object_json, patch.str());
}

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
      cluster_.client, {resource->path(), resource->api_version(), gvk.kind, std::string(kProfileLabel)},
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

void PodGroupController::watch(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    // Kinds that some rule's profile makes PodGroups for: only those are watched, one watch per kind (at the version
    // of its first definition; the API server converts).
    std::map<std::string, catalog::GroupVersionKind> wanted;  // by group/kind
    const policy::AdmissionState st = cluster_.state.current();
    if (st.catalog && st.policy)
      for (const auto& d : st.catalog->definitions())
        for (const auto& rule : st.policy->rules()) {
          if (!rule.profile) continue;
          const bool kind_ok = std::any_of(rule.kinds.begin(), rule.kinds.end(), [&](const std::string& k) {
            return policy::kind_matches(k, d->gvk.group, d->gvk.kind);
          });
          if (kind_ok && (policy::Policy::edits_for(*rule.profile, d->gvk.group, d->gvk.kind, true).pod_group ||
                          policy::Policy::edits_for(*rule.profile, d->gvk.group, d->gvk.kind, false).pod_group))
            wanted.emplace(d->gvk.group + "/" + d->gvk.kind, d->gvk);
        }
    watchers_.sync(wanted);
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

Result<std::set<std::pair<std::string, std::string>>> PodGroupController::existing(
    const std::string& object_uid, const std::set<std::string>& resource_paths) {
  std::set<std::pair<std::string, std::string>> out;
  simdjson::dom::parser parser;
  for (const auto& path : resource_paths) {
    kube::Response r = cluster_.client.request(
        "GET", path + "?labelSelector=" + kube::url_encode(std::string(kOwnerUidLabel) + "=" + object_uid));
    simdjson::dom::element list;
    simdjson::dom::array items;
    if (!r.ok() || parser.parse(r.body).get(list) || list["items"].get_array().get(items))
      return Error{"list " + path + ": " + r.describe()};
    for (auto item : items) out.emplace(path, json::string_at(item, "/metadata/name"));
  }
  return out;
}

bool PodGroupController::reconcile_one(const std::string& key) {
  std::string json;
  {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(key);
    if (it != objects_.end()) json = it->second;
  }
  if (json.empty()) {
    forget(key);
    return true;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return true;
  bool retry = false;
  const std::optional<DesiredPodGroups> desired = desired_pod_groups(key, root, retry);
  if (!desired) return !retry;

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
  return apply(key, root, *desired, applied) && (!first_look || adopt(key, uid, *desired, applied)) &&
         prune(key, root, *desired, applied);
}

// A deleted workload: its PodGroups go with it (owner references); what this leader kept of it goes now.
void PodGroupController::forget(const std::string& key) {
  {
    std::lock_guard lock(applied_mutex_);
    applied_.erase(key);
    backoff_.erase(key);
  }
  if (auto [kind, namespace_name, name] = split_key(key); !kind.empty())
    cluster_.events.forget(kind, namespace_name, name);
}

std::optional<PodGroupController::DesiredPodGroups> PodGroupController::desired_pod_groups(const std::string& key,
                                                                                           simdjson::dom::element root,
                                                                                           bool& retry) {
  const policy::AdmissionState st = cluster_.state.current();
  const std::string api_version(json::string_at(root, "/apiVersion")), kind(json::string_at(root, "/kind"));
  const std::string namespace_name(json::string_at(root, "/metadata/namespace"));
  const std::string profile_name(json::string_at(root, json::pointer_child("/metadata/labels", kProfileLabel)));
  const catalog::Catalog::Match match = st.catalog->find(api_version, kind);
  const policy::SchedulerProfile* profile = st.policy->profile(profile_name);
  if (!match.definition || !profile) {
    cluster_.log.log(LogLevel::Warn, "no PodGroups for a workload: its kind or its profile is no longer known",
                     {{"workload", key}, {"profile", profile_name}});
    return std::nullopt;
  }
  const auto& gvk = match.definition->gvk;
  const policy::ProfileEdits& edits =
      policy::Policy::edits_for(*profile, gvk.group, gvk.kind, !policy::owners_of(root).controller);
  DesiredPodGroups desired;
  if (!edits.pod_group) return desired;  // none: any it has go

  json::ObjectDocument doc(root);
  view::ViewOptions options =
      policy::view_options_for(*profile, gvk.group, gvk.kind, !policy::owners_of(root).controller);
  options.catalog = st.catalog.get();
  options.references = st.references.get();
  const view::WorkloadView view = view::build_view(*match.definition, doc, options);
  std::string group_name(json::string_at(root, json::pointer_child("/metadata/annotations", kGroupNameAnnotation)));
  if (group_name.empty()) group_name = json::string_at(root, "/metadata/name");
  const std::string queue(json::string_at(root, json::pointer_child("/metadata/annotations", kQueueAnnotation)));
  simdjson::dom::parser object_parser;
  for (const auto& object_json :
       policy::pod_group_objects(*edits.pod_group, view, profile->gang_rule, root, group_name, queue)) {
    simdjson::dom::element object;
    if (object_parser.parse(object_json).get(object) != simdjson::SUCCESS) continue;
    const auto [group, version] = json::split_api_version(json::string_at(object, "/apiVersion"));
    auto resource = cluster_.discovery.find(std::string(group), std::string(version),
                                            std::string(json::string_at(object, "/kind")));
    if (!resource) {
      cluster_.log.log(LogLevel::Warn, "cannot make a PodGroup (retrying)",
                       {{"workload", key}, {"problem", resource.error()}});
      cluster_.events.warning(reference_to(root), "PodGroupFailed", "cannot make its PodGroups: " + resource.error());
      cluster_.metrics.add_counter(kPodGroupErrorsMetric.name, kPodGroupErrorsMetric.help, {{"kind", kind}});
      retry = true;
      return std::nullopt;
    }
    std::string object_namespace(json::string_at(object, "/metadata/namespace"));
    if (object_namespace.empty()) object_namespace = namespace_name;
    auto body = owned(object_json, object, root);
    if (!body) {
      cluster_.log.log(LogLevel::Error, "cannot make a PodGroup", {{"workload", key}, {"problem", body.error()}});
      cluster_.events.warning(reference_to(root), "PodGroupFailed", "cannot make its PodGroups: " + body.error());
      return std::nullopt;
    }
    desired.resources.emplace(resource->path(object_namespace), *resource);
    desired.bodies[{resource->path(object_namespace), std::string(json::string_at(object, "/metadata/name"))}] =
        std::move(*body);
  }
  return desired;
}

bool PodGroupController::apply(const std::string& key, simdjson::dom::element root, const DesiredPodGroups& desired,
                               Applied& applied) {
  const std::string kind(json::string_at(root, "/kind"));
  for (const auto& [where, body] : desired.bodies) {
    auto it = applied.objects.find(where);
    if (it != applied.objects.end() && it->second == body) continue;
    kube::Response r = cluster_.client.request(
        "PATCH", where.first + "/" + kube::url_encode(where.second) + "?fieldManager=workload-map&force=true", body,
        kube::kApplyPatch);
    if (!r.ok()) {
      cluster_.log.log(LogLevel::Warn, "cannot apply a PodGroup (retrying)",
                       {{"workload", key}, {"podGroup", where.second}, {"problem", r.describe()}});
      cluster_.events.warning(reference_to(root), "PodGroupFailed",
                              "cannot apply PodGroup " + where.second + ": " + r.describe());
      cluster_.metrics.add_counter(kPodGroupErrorsMetric.name, kPodGroupErrorsMetric.help, {{"kind", kind}});
      applied.uid.clear();
      return false;
    }
    // An apply answers 201 when it created the object. A 200 on first look is one a previous leader wrote, which
    // this one only re-asserts: no Event.
    const bool created = r.status == 201, updated = !created && it != applied.objects.end();
    if (created || updated)
      cluster_.events.normal(reference_to(root), created ? "PodGroupCreated" : "PodGroupUpdated",
                             (created ? "created PodGroup " : "updated PodGroup ") + where.second);
    applied.objects[where] = body;
    cluster_.metrics.add_counter(kPodGroupsAppliedMetric.name, kPodGroupsAppliedMetric.help, {{"kind", kind}});
    cluster_.log.log(LogLevel::Info, "PodGroup applied", {{"workload", key}, {"podGroup", where.second}});
  }
  return true;
}

bool PodGroupController::adopt(const std::string& key, const std::string& uid, const DesiredPodGroups& desired,
                               Applied& applied) {
  // From the watches of PodGroups once they have listed; until then from the API server.
  std::set<std::pair<std::string, std::string>> watched;
  bool all_watched = true;
  for (const auto& [path, resource] : desired.resources) {
    auto owned = owned_.of(resource, uid);
    if (!owned) {
      all_watched = false;
      break;
    }
    watched.insert(owned->begin(), owned->end());
  }
  Result<std::set<std::pair<std::string, std::string>>> found = std::move(watched);
  if (!all_watched) {
    std::set<std::string> paths;
    for (const auto& [path, resource] : desired.resources) paths.insert(path);
    found = existing(uid, paths);
  }
  if (!found) {  // what to delete is unknown: look again on the retry
    cluster_.log.log(LogLevel::Warn, "cannot list a workload's PodGroups (retrying)",
                     {{"workload", key}, {"problem", found.error()}});
    applied.uid.clear();
    return false;
  }
  for (const auto& where : *found) applied.objects.try_emplace(where, "");
  return true;
}

bool PodGroupController::prune(const std::string& key, simdjson::dom::element root, const DesiredPodGroups& desired,
                               Applied& applied) {
  const std::string kind(json::string_at(root, "/kind"));
  for (auto it = applied.objects.begin(); it != applied.objects.end();) {
    if (desired.bodies.count(it->first)) {
      ++it;
      continue;
    }
    kube::Response r = cluster_.client.request("DELETE", it->first.first + "/" + kube::url_encode(it->first.second));
    if (!r.ok() && r.status != 404) {
      cluster_.log.log(LogLevel::Warn, "cannot delete a PodGroup its workload no longer has (retrying)",
                       {{"workload", key}, {"podGroup", it->first.second}, {"problem", r.describe()}});
      return false;
    }
    cluster_.metrics.add_counter(kPodGroupsDeletedMetric.name, kPodGroupsDeletedMetric.help, {{"kind", kind}});
    cluster_.log.log(LogLevel::Info, "PodGroup deleted", {{"workload", key}, {"podGroup", it->first.second}});
    cluster_.events.normal(reference_to(root), "PodGroupDeleted",
                           "deleted PodGroup " + it->first.second + ": its gang is gone");
    it = applied.objects.erase(it);
  }
  return true;
}

void PodGroupController::reconcile(const std::atomic<bool>& stop, const std::atomic<bool>& leading) {
  std::string key;
  while (queue_.next(key, stop)) {
    const WorkQueue::Holding holding(queue_, key);
    if (!leading.load()) continue;  // leadership_changed() queues everything again for a new leader
    const bool reconciled = reconcile_one(key);
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
