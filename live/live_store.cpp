#include "live/live_store.h"

#include <algorithm>
#include <optional>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"

namespace wm::live {

namespace {

// The controller among the object's owners, else (for a pod) the pod it stands in for (ownership.cpp's rule).
std::optional<simdjson::dom::element> controller_of(simdjson::dom::element object, bool is_pod) {
  simdjson::dom::array owners;
  std::optional<simdjson::dom::element> stand_in;
  if (object.at_pointer("/metadata/ownerReferences").get(owners) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element o : owners) {
    bool controller = false;
    if (o["controller"].get(controller) == simdjson::SUCCESS && controller) return o;
    if (is_pod && !stand_in && json::string_member(o, "kind") == "Pod") stand_in = o;
  }
  return stand_in;
}

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

// `object` without the members of its metadata and status that `drop` names, nor kubectl's last-applied annotation.
std::string without(simdjson::dom::element object, const std::vector<std::string_view>& drop) {
  simdjson::dom::object top;
  if (object.get_object().get(top) != simdjson::SUCCESS) return json::element_json(object);
  json::JsonWriter w;
  w.begin_object();
  for (auto [key, value] : top) {
    simdjson::dom::object inner;
    if ((key != "metadata" && key != "status") || value.get_object().get(inner) != simdjson::SUCCESS) {
      w.key(key).raw(json::element_json(value));
      continue;
    }
    w.key(key).begin_object();
    for (auto [k, v] : inner) {
      simdjson::dom::object annotations;
      if (std::find(drop.begin(), drop.end(), k) != drop.end()) continue;
      if (key != "metadata" || k != "annotations" || v.get_object().get(annotations) != simdjson::SUCCESS) {
        w.key(k).raw(json::element_json(v));
        continue;
      }
      w.key(k).begin_object();
      for (auto [name, text] : annotations)
        if (name != kLastApplied) w.key(name).raw(json::element_json(text));
      w.end_object();
    }
    w.end_object();
  }
  return w.end_object().take();
}

}  // namespace

std::string object_as_kept(simdjson::dom::element object) { return without(object, {"managedFields"}); }

std::string pod_as_kept(simdjson::dom::element pod, const catalog::Catalog& catalog) {
  // Counted only when what controls it (or the pod it stands in for) is of a kind the catalog knows: it is held too.
  const std::optional<simdjson::dom::element> owner = controller_of(pod, true);
  const catalog::Catalog::Match match =
      owner ? catalog.find(json::string_member(*owner, "apiVersion"), json::string_member(*owner, "kind"))
            : catalog::Catalog::Match{};
  if (!match.definition && match.uncovered_version_of.empty())
    return without(pod, {"managedFields", "containerStatuses", "initContainerStatuses"});
  json::JsonWriter w;
  w.begin_object().key("metadata").begin_object();
  for (const char* key : {"name", "namespace", "uid"})
    w.field(key, json::string_at(pod, std::string("/metadata/") + key));
  simdjson::dom::element owners;
  if (pod.at_pointer("/metadata/ownerReferences").get(owners) == simdjson::SUCCESS)
    w.key("ownerReferences").raw(json::element_json(owners));
  w.end_object().key("spec").begin_object();
  for (const char* key : {"nodeName", "schedulerName"})
    if (std::string_view v = json::string_at(pod, std::string("/spec/") + key); !v.empty()) w.field(key, v);
  w.end_object().key("status").begin_object().field("phase", json::string_at(pod, "/status/phase"));
  w.key("conditions").begin_array();
  json::for_each_at(pod, "/status/conditions/*", [&](simdjson::dom::element c) {
    if (json::string_member(c, "type") == "PodScheduled") w.raw(json::element_json(c));
  });
  return w.end_array().end_object().end_object().take();
}

std::string LiveStore::put(LiveRole role, std::string_view api_version, std::string_view kind, std::string kept,
                           const catalog::Catalog& catalog, std::set<std::string>& touched) {
  simdjson::dom::element object;
  if (parser_.parse(kept).get(object) != simdjson::SUCCESS) return {};
  std::string uid(json::string_at(object, "/metadata/uid"));
  if (uid.empty()) return {};
  Entry entry{role, name(api_version), name(kind)};
  if (role == LiveRole::Gang) {
    json::for_each_at(object, "/metadata/ownerReferences/*", [&](simdjson::dom::element o) {
      if (std::string_view owner = json::string_member(o, "uid"); !owner.empty()) entry.gang_owners.emplace_back(owner);
    });
  } else if (auto c = controller_of(object, role == LiveRole::Pod)) {
    entry.owner_api_version = name(json::string_member(*c, "apiVersion"));
    entry.owner_kind = name(json::string_member(*c, "kind"));
    entry.owner_uid = json::string_member(*c, "uid");
  }
  entry.json = std::move(kept);
  entry.json.shrink_to_fit();  // built by appending: up to twice its size otherwise
  auto it = entries_.find(uid);
  if (it != entries_.end()) {
    touch_around(uid, catalog, touched);
    unlink(it->first, it->second);
    it->second = std::move(entry);
  } else {
    it = entries_.emplace(uid, std::move(entry)).first;
  }
  link(it->first, it->second);
  touch_around(uid, catalog, touched);
  return uid;
}

void LiveStore::remove(const std::string& uid, const catalog::Catalog& catalog, std::set<std::string>& touched) {
  auto it = entries_.find(uid);
  if (it == entries_.end()) return;
  touch_around(uid, catalog, touched);
  touched.insert(uid);
  unlink(it->first, it->second);
  entries_.erase(it);
  // What it owned may be workloads of their own now.
  if (auto owned = owned_.find(uid); owned != owned_.end())
    for (const std::string* child : owned->second) touched.insert(*child);
}

void LiveStore::keep_only(std::string_view group, std::string_view kind, const std::set<std::string>& uids,
                          const catalog::Catalog& catalog, std::set<std::string>& touched) {
  std::vector<std::string> gone;
  for (const auto& [uid, e] : entries_)
    if (*e.kind == kind && json::split_api_version(*e.api_version).first == group && !uids.count(uid))
      gone.push_back(uid);
  for (const auto& uid : gone) remove(uid, catalog, touched);
}

const std::string* LiveStore::parent_of(const std::string& uid, const Entry& entry,
                                        const catalog::Catalog& catalog) const {
  if (entry.role == LiveRole::Gang || entry.owner_uid.empty() || entry.owner_uid == uid) return nullptr;
  auto owner = entries_.find(entry.owner_uid);
  if (owner == entries_.end() || owner->second.role == LiveRole::Gang) return nullptr;
  // A pod is its controller's whatever the kinds; an object only where the catalog counts it its owner's part.
  if (entry.role == LiveRole::Pod ||
      catalog.part_of_its_owner(*entry.owner_api_version, *entry.owner_kind,
                                json::split_api_version(*entry.api_version).first, *entry.kind))
    return &owner->first;
  return nullptr;
}

std::string LiveStore::workload_of(const std::string& uid, const catalog::Catalog& catalog) const {
  const std::string* at = &uid;
  auto it = entries_.find(uid);
  if (it == entries_.end() || it->second.role == LiveRole::Gang) return {};
  for (int depth = 0; depth < 32; ++depth) {
    const std::string* parent = parent_of(*at, it->second, catalog);
    if (!parent) break;
    at = parent;
    it = entries_.find(*at);
  }
  return *at;
}

bool LiveStore::is_workload(const std::string& uid, const catalog::Catalog& catalog) const {
  auto it = entries_.find(uid);
  if (it == entries_.end() || it->second.role == LiveRole::Gang || parent_of(uid, it->second, catalog)) return false;
  return it->second.role == LiveRole::Object || catalog.find("v1", "Pod").definition != nullptr;
}

void LiveStore::touch_around(const std::string& uid, const catalog::Catalog& catalog,
                             std::set<std::string>& touched) const {
  const Entry& e = entries_.at(uid);
  if (e.role == LiveRole::Gang) {
    for (const auto& owner : e.gang_owners)
      if (std::string w = workload_of(owner, catalog); !w.empty()) touched.insert(std::move(w));
    return;
  }
  touched.insert(workload_of(uid, catalog));
  if (auto owned = owned_.find(uid); owned != owned_.end())
    for (const std::string* child : owned->second) touched.insert(*child);
}

const std::string* LiveStore::name(std::string_view text) {
  auto it = names_.find(text);
  if (it == names_.end()) it = names_.emplace(text).first;
  return &*it;
}

void LiveStore::link(const std::string& uid, const Entry& entry) {
  if (entry.role == LiveRole::Gang)
    for (const auto& owner : entry.gang_owners) gangs_of_[owner].push_back(&uid);
  else if (!entry.owner_uid.empty())
    owned_[entry.owner_uid].push_back(&uid);
}

void LiveStore::unlink(const std::string& uid, const Entry& entry) {
  auto drop = [&](std::unordered_map<std::string, std::vector<const std::string*>>& index, const std::string& owner) {
    auto it = index.find(owner);
    if (it == index.end()) return;
    std::erase(it->second, &uid);
    if (it->second.empty()) index.erase(it);
  };
  if (entry.role == LiveRole::Gang)
    for (const auto& owner : entry.gang_owners) drop(gangs_of_, owner);
  else if (!entry.owner_uid.empty())
    drop(owned_, entry.owner_uid);
}

Snapshot LiveStore::snapshot_of(const std::string& uid, const catalog::Catalog& catalog) const {
  Snapshot snapshot;
  simdjson::dom::parser parser;
  auto adopt = [&](const Entry& e) -> std::optional<simdjson::dom::element> {
    auto doc = std::make_unique<simdjson::dom::document>();
    simdjson::dom::element root;
    if (parser.parse_into_document(*doc, e.json).get(root) != simdjson::SUCCESS) return std::nullopt;
    snapshot.documents.push_back(std::move(doc));
    return root;
  };
  std::set<std::string_view> gangs;
  std::vector<const std::string*> queue{&uid};
  for (size_t i = 0; i < queue.size(); ++i) {
    const std::string& at = *queue[i];
    auto it = entries_.find(at);
    if (it == entries_.end()) continue;
    const Entry& e = it->second;
    if (auto root = adopt(e)) {
      if (e.role == LiveRole::Pod)
        snapshot.pods.push_back(*root);
      else
        snapshot.objects.push_back({*root, *e.api_version, *e.kind});
    }
    if (auto owned = owned_.find(at); owned != owned_.end())
      for (const std::string* child : owned->second)
        if (const std::string* parent = parent_of(*child, entries_.at(*child), catalog); parent && *parent == at)
          queue.push_back(child);
    if (auto g = gangs_of_.find(at); g != gangs_of_.end())
      for (const std::string* gang : g->second)
        if (gangs.insert(*gang).second) {
          const Entry& ge = entries_.at(*gang);
          if (auto root = adopt(ge)) snapshot.gang_objects.push_back({*root, *ge.api_version, *ge.kind});
        }
  }
  return snapshot;
}

std::vector<std::string> LiveStore::workloads(const catalog::Catalog& catalog) const {
  std::vector<std::string> out;
  for (const auto& [uid, e] : entries_)
    if (is_workload(uid, catalog)) out.push_back(uid);
  return out;
}

LiveStore::Counts LiveStore::counts() const {
  Counts c;
  for (const auto& [uid, e] : entries_) {
    (e.role == LiveRole::Pod ? c.pods : e.role == LiveRole::Gang ? c.gangs : c.objects) += 1;
    c.bytes += e.json.size();
  }
  return c;
}

}  // namespace wm::live
