// Which resource (the plural in URLs) serves a kind, from the API server's discovery documents, remembered once
// found. A kind whose API is not installed (a CRD not applied yet) is looked up again on the next call.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "kube/api.h"

namespace wm::kube {

struct Resource {
  std::string group, version, kind, plural;
  bool namespaced = true;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // The collection across namespaces, or in one.
  std::string path(const std::string& namespace_name = {}) const;
};

// A kind's API resource, as Discovery::find finds it: what the controllers' plans take, so that a test can answer.
using FindResource =
    std::function<Result<Resource>(const std::string& group, const std::string& version, const std::string& kind)>;

class Discovery {
 public:
  explicit Discovery(Api& api) : api_(api) {}
  // NotFound when the group/version is not served or has no such kind; Unavailable when the API server did not say.
  Result<Resource> find(const std::string& group, const std::string& version, const std::string& kind);
  // find(), as a plan takes it.
  FindResource finder() {
    return [this](const std::string& group, const std::string& version, const std::string& kind) {
      return find(group, version, kind);
    };
  }
  // find(), again with back-off (1 s doubling to 2 min) until the kind is served; nothing once `stop` is set.
  // `not_yet` hears the first failure (a CRD not installed yet, say).
  std::optional<Resource> find_once_served(const std::string& group, const std::string& version,
                                           const std::string& kind, const std::atomic<bool>& stop,
                                           const std::function<void(const std::string& error)>& not_yet);
  // The same for the first of `versions` that is served (the API server converts between them).
  std::optional<Resource> find_once_served(const std::string& group, const std::vector<std::string>& versions,
                                           const std::string& kind, const std::atomic<bool>& stop,
                                           const std::function<void(const std::string& error)>& not_yet);

 private:
  Api& api_;
  std::mutex mutex_;
  std::map<std::string, Resource> found_;  // by group/version/kind
};

}  // namespace wm::kube
