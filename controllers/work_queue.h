// Keys waiting to be reconciled, each at most once however often it changed, each at a time (now, or later
// for a retry). One worker takes them in due order.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

namespace wm::controllers {

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;
  // Due after `delay`; a key already waiting keeps the earlier of its two times.
  void add(const std::string& key, std::chrono::milliseconds delay = std::chrono::milliseconds(0)) {
    const auto due = Clock::now() + delay;
    {
      std::lock_guard lock(mutex_);
      auto [it, added] = due_.emplace(key, due);
      if (!added && due < it->second) it->second = due;
    }
    ready_.notify_one();
  }
  // The next due key; false once `stop` is true.
  bool next(std::string& key, const std::atomic<bool>& stop) {
    std::unique_lock lock(mutex_);
    while (!stop.load()) {
      auto first = due_.end();
      for (auto it = due_.begin(); it != due_.end(); ++it)
        if (first == due_.end() || it->second < first->second) first = it;
      const auto now = Clock::now();
      if (first != due_.end() && first->second <= now) {
        key = first->first;
        due_.erase(first);
        return true;
      }
      const auto wait = first == due_.end()
                            ? std::chrono::milliseconds(200)
                            : std::min<Clock::duration>(first->second - now, std::chrono::milliseconds(200));
      ready_.wait_for(lock, wait);
    }
    return false;
  }
  size_t size() const {
    std::lock_guard lock(mutex_);
    return due_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::map<std::string, Clock::time_point> due_;
};

}  // namespace wm::controllers
