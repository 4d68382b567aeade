// A watch thread per kind, kept in step with the kinds wanted now (the catalog and the policy change while the server
// runs): a kind newly wanted gets its thread, a kind no longer wanted has its thread stopped and joined.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mapper/catalog/definition.h"

namespace wm::controllers {

class KindWatchers {
 public:
  // Runs one kind's watch until its `stop` is set.
  using Watch = std::function<void(const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop)>;
  explicit KindWatchers(Watch watch) : watch_(std::move(watch)) {}
  ~KindWatchers() { stop_all(); }
  KindWatchers(const KindWatchers&) = delete;
  KindWatchers& operator=(const KindWatchers&) = delete;

  // `wanted` by key (group/kind); returns the keys whose threads it stopped.
  std::vector<std::string> sync(const std::map<std::string, catalog::GroupVersionKind>& wanted) {
    std::vector<std::string> stopped;
    for (auto it = watchers_.begin(); it != watchers_.end();) {
      if (wanted.count(it->first)) {
        ++it;
        continue;
      }
      it->second->stop = true;
      it->second->thread.join();
      stopped.push_back(it->first);
      it = watchers_.erase(it);
    }
    for (const auto& [key, kind] : wanted) {
      if (watchers_.count(key)) continue;
      auto w = std::make_unique<Watcher>();
      w->thread = std::thread([this, kind = kind, stop = &w->stop] { watch_(kind, *stop); });
      watchers_.emplace(key, std::move(w));
    }
    return stopped;
  }

  void stop_all() {
    for (auto& [key, w] : watchers_) w->stop = true;
    for (auto& [key, w] : watchers_)
      if (w->thread.joinable()) w->thread.join();
    watchers_.clear();
  }

 private:
  struct Watcher {
    std::atomic<bool> stop{false};
    std::thread thread;
  };
  Watch watch_;
  std::map<std::string, std::unique_ptr<Watcher>> watchers_;  // by group/kind
};

}  // namespace wm::controllers
