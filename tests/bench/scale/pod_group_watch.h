// What the scale benchmark sees of PodGroups: a watch (kube::Reflector, the cluster side's own) on one PodGroup
// resource, kept for one namespace. It records when each workload's first PodGroup appeared, and which PodGroups
// (name, minMember) each workload owns now.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"

namespace wm::bench {

class PodGroupWatch {
 public:
  using Clock = std::chrono::steady_clock;
  // `path`: /apis/GROUP/VERSION/podgroups; only PodGroups of `ns` count.
  PodGroupWatch(kube::Client& client, const std::string& path, const std::string& api_version, std::string ns);
  ~PodGroupWatch();

  // When the first PodGroup owned by `owner` (a workload's name) was seen, if one was.
  bool first_seen(const std::string& owner, Clock::time_point& at) const;
  // The minMembers of the PodGroups `owner` owns now, sorted.
  std::vector<long long> min_members(const std::string& owner) const;
  size_t owners_seen() const;  // workloads that ever had a PodGroup
  size_t pod_groups() const;   // PodGroups in the namespace now
  size_t unowned() const;      // PodGroups in the namespace with no ownerReference
  bool live() const { return live_.load(); }

 private:
  struct PodGroup {
    std::string owner;
    long long min_member = 0;
  };
  void apply(const std::string& json, bool deleted);

  std::string ns_;
  mutable std::mutex mutex_;
  std::map<std::string, PodGroup> groups_;               // by name
  std::map<std::string, Clock::time_point> first_seen_;  // by owner
  std::atomic<bool> stop_{false}, live_{false};
  std::thread thread_;
};

}  // namespace wm::bench
