// Keys waiting to be reconciled, each at most once however often it changed, each at a time (now, or later
// for a retry). Several workers take them in due order, never one key in two workers at once: a key added while a
// worker holds it waits until that worker calls done() (client-go's workqueue: its dirty and processing sets).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
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
  // The next due key that no worker holds, now held by the caller until done(key); false once `stop` is true.
  bool next(std::string& key, const std::atomic<bool>& stop) {
    std::unique_lock lock(mutex_);
    while (!stop.load()) {
      auto first = due_.end();
      for (auto it = due_.begin(); it != due_.end(); ++it)
        if ((first == due_.end() || it->second < first->second) && !held_.count(it->first)) first = it;
      const auto now = Clock::now();
      if (first != due_.end() && first->second <= now) {
        key = first->first;
        due_.erase(first);
        held_.insert(key);
        return true;
      }
      const auto wait = first == due_.end()
                            ? std::chrono::milliseconds(200)
                            : std::min<Clock::duration>(first->second - now, std::chrono::milliseconds(200));
      ready_.wait_for(lock, wait);
    }
    return false;
  }
  // The worker is through with `key`: if it was added again meanwhile, another worker may take it.
  void done(const std::string& key) {
    {
      std::lock_guard lock(mutex_);
      held_.erase(key);
    }
    ready_.notify_all();
  }
  // done(key) on every way out of a worker's loop body: `WorkQueue::Holding holding(queue, key);` after next().
  struct Holding {
    WorkQueue& queue;
    const std::string key;
    Holding(WorkQueue& q, std::string k) : queue(q), key(std::move(k)) {}
    Holding(const Holding&) = delete;
    Holding& operator=(const Holding&) = delete;
    ~Holding() { queue.done(key); }
  };
  size_t size() const {
    std::lock_guard lock(mutex_);
    return due_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::map<std::string, Clock::time_point> due_;
  std::set<std::string> held_;  // taken by a worker, not done yet
};

}  // namespace wm::controllers
