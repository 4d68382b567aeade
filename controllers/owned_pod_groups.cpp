#include "controllers/owned_pod_groups.h"

#include <simdjson.h>

#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "kube/reflector.h"

namespace wm::controllers {

OwnedPodGroups::~OwnedPodGroups() {
  stop_ = true;
  for (auto& [path, watch] : watches_) watch->thread.join();
}

void OwnedPodGroups::apply(Watch& watch, const kube::Resource& resource, const std::string& object_json, bool deleted) {
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(object_json).get(object) != simdjson::SUCCESS) return;
  const Where where{resource.path(std::string(json::string_at(object, "/metadata/namespace"))),
                    std::string(json::string_at(object, "/metadata/name"))};
  const std::string uid(json::string_at(object, json::pointer_child("/metadata/labels", label_)));
  std::lock_guard lock(mutex_);
  if (auto it = watch.owner.find(where); it != watch.owner.end()) {  // its owner label may have changed
    watch.by_owner[it->second].erase(where);
    if (watch.by_owner[it->second].empty()) watch.by_owner.erase(it->second);
    watch.owner.erase(it);
  }
  if (deleted || uid.empty()) return;
  watch.owner[where] = uid;
  watch.by_owner[uid].insert(where);
}

std::optional<std::set<OwnedPodGroups::Where>> OwnedPodGroups::of(const kube::Resource& resource,
                                                                  const std::string& uid) {
  const std::string path = resource.path();
  std::lock_guard lock(mutex_);
  auto it = watches_.find(path);
  if (it == watches_.end()) {
    auto watch = std::make_unique<Watch>();
    Watch& w = *watch;
    kube::ReflectorHandlers handlers;
    handlers.replaced = [this, &w, resource](std::vector<std::string> objects) {
      {
        std::lock_guard relisted(mutex_);
        w.listed = false;  // half refilled is not known
        w.by_owner.clear();
        w.owner.clear();
      }
      for (const auto& o : objects) apply(w, resource, o, false);
      std::lock_guard listed(mutex_);
      w.listed = true;
    };
    handlers.changed = [this, &w, resource](kube::EventType type, const std::string& object) {
      apply(w, resource, object, type == kube::EventType::Deleted);
    };
    handlers.failed = [](const std::string&) {};  // retried; until it lists again, what it holds may lag
    w.thread = std::thread([this, handlers = std::move(handlers),
                            collection = kube::Collection{path, resource.api_version(), resource.kind, label_}] {
      kube::Reflector(api_, collection, handlers).run(stop_);
    });
    watches_.emplace(path, std::move(watch));
    return std::nullopt;
  }
  if (!it->second->listed) return std::nullopt;
  auto owned = it->second->by_owner.find(uid);
  return owned == it->second->by_owner.end() ? std::set<Where>{} : owned->second;
}

}  // namespace wm::controllers
