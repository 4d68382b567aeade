// The PodGroups this controller made, by workload uid, as watches see them: one watch per PodGroup resource (the
// objects with the owner-uid label), started the first time a reconcile asks about that resource. A new leader
// reads from here which PodGroups a previous one wrote, instead of listing them per workload: at 20 new workloads a
// second that list was a third of the cluster side's API calls (tests/bench/scale).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "kube/api.h"
#include "kube/discovery.h"

namespace wm::controllers {

class OwnedPodGroups {
 public:
  using Where = std::pair<std::string, std::string>;  // (namespaced collection path, name), as reconciles key them
  OwnedPodGroups(kube::Api& api, std::string owner_label) : api_(api), label_(std::move(owner_label)) {}
  ~OwnedPodGroups();
  // The PodGroups of `resource` that workload `uid` owns; nullopt until that resource's watch has listed.
  std::optional<std::set<Where>> of(const kube::Resource& resource, const std::string& uid);

 private:
  struct Watch {
    bool listed = false;
    std::map<std::string, std::set<Where>> by_owner;  // uid -> PodGroups
    std::map<Where, std::string> owner;               // PodGroup -> uid
    std::thread thread;
  };
  void apply(Watch& watch, const kube::Resource& resource, const std::string& object_json, bool deleted);

  kube::Api& api_;
  const std::string label_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Watch>> watches_;  // by collection path
  std::atomic<bool> stop_{false};
};

}  // namespace wm::controllers
