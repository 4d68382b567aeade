#include "kube/discovery.h"

#include <simdjson.h>

#include "kube/backoff.h"

namespace wm::kube {

std::string Resource::path(const std::string& namespace_name) const {
  std::string out = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (!namespace_name.empty()) out += "/namespaces/" + namespace_name;
  return out + "/" + plural;
}

Result<Resource> Discovery::find(const std::string& group, const std::string& version, const std::string& kind) {
  const std::string key = group + "/" + version + "/" + kind;
  {
    std::lock_guard lock(mutex_);
    if (auto it = found_.find(key); it != found_.end()) return it->second;
  }
  const std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  Response r = api_.request("GET", path);
  if (!r.ok()) return r.failure("discovery " + path);  // 404: the group/version is not served (yet)
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array resources;
  if (parser.parse(r.body).get(doc) != simdjson::SUCCESS || doc["resources"].get_array().get(resources)) {
    return Error{"discovery " + path + ": not a resource list", ErrorCode::Unavailable};
  }
  for (auto entry : resources) {
    std::string_view name, entry_kind;
    bool namespaced = true;
    if (entry["name"].get_string().get(name) || entry["kind"].get_string().get(entry_kind)) continue;
    if (entry_kind != kind || name.find('/') != std::string_view::npos) continue;  // not a subresource
    if (entry["namespaced"].get_bool().get(namespaced) != simdjson::SUCCESS) namespaced = true;
    Resource found{group, version, kind, std::string(name), namespaced};
    std::lock_guard lock(mutex_);
    found_[key] = found;
    return found;
  }
  return Error{path + " serves no kind " + kind, ErrorCode::NotFound};
}

std::optional<Resource> Discovery::find_once_served(const std::string& group, const std::string& version,
                                                    const std::string& kind, const std::atomic<bool>& stop,
                                                    const std::function<void(const std::string& error)>& not_yet) {
  return find_once_served(group, std::vector<std::string>{version}, kind, stop, not_yet);
}

std::optional<Resource> Discovery::find_once_served(const std::string& group, const std::vector<std::string>& versions,
                                                    const std::string& kind, const std::atomic<bool>& stop,
                                                    const std::function<void(const std::string& error)>& not_yet) {
  Backoff backoff(std::chrono::seconds(1), std::chrono::minutes(2));
  bool said = false;
  while (!stop.load()) {
    std::string error = "no version of " + kind + " to look for";
    for (const auto& version : versions) {
      auto resource = find(group, version, kind);
      if (resource) return std::move(*resource);
      if (version == versions.front()) error = resource.error();
    }
    if (!said) not_yet(error);
    said = true;
    if (!sleep_unless_stopped(backoff.next(), stop)) break;
  }
  return std::nullopt;
}

}  // namespace wm::kube
