#include "mapper/expr/jq_watchdog.h"

extern "C" {
#include <jq.h>
}

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace wm::expr {

using Clock = std::chrono::steady_clock;

// One per thread that runs jq. The owning thread sets `jq` before an evaluation and clears it
// after, both under `mutex`, so the watchdog only ever halts a state that is mid-evaluation.
struct JqSlot {
  std::mutex mutex;
  jq_state* jq = nullptr;
  Clock::time_point deadline;
  bool expired = false;
};

namespace {

class Watchdog {
 public:
  // Never destroyed: its thread may outlive static destruction at exit.
  static Watchdog& instance() {
    static auto* watchdog = new Watchdog;
    return *watchdog;
  }

  JqSlot* slot_for_this_thread() {
    thread_local JqSlot* slot = nullptr;
    if (!slot) {
      std::lock_guard lock(mutex_);
      slots_.push_back(std::make_unique<JqSlot>());  // kept: a thread's slot is tiny
      slot = slots_.back().get();
      if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    return slot;
  }

  void started() {
    if (active_.fetch_add(1) == 0) {
      std::lock_guard lock(mutex_);
      wake_.notify_one();
    }
  }
  void finished() { active_.fetch_sub(1); }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      // Idle while nothing runs; otherwise look often enough to stop a runaway near its budget.
      wake_.wait_for(lock, active_.load() ? kJqTimeBudget / 10 : std::chrono::milliseconds(1000));
      const auto now = Clock::now();
      for (auto& slot : slots_) {
        std::lock_guard slot_lock(slot->mutex);
        if (slot->jq && !slot->expired && now >= slot->deadline) {
          // jv_invalid() for both: nothing allocated here, and jq 1.6's reset frees them safely.
          jq_halt(slot->jq, jv_invalid(), jv_invalid());
          slot->expired = true;
        }
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::unique_ptr<JqSlot>> slots_;
  std::atomic<int> active_{0};
  std::thread thread_;
};

}  // namespace

JqDeadline::JqDeadline(jq_state* jq, std::chrono::milliseconds budget)
    : slot_(Watchdog::instance().slot_for_this_thread()) {
  {
    std::lock_guard lock(slot_->mutex);
    slot_->jq = jq;
    slot_->deadline = Clock::now() + budget;
    slot_->expired = false;
  }
  Watchdog::instance().started();
}

JqDeadline::~JqDeadline() {
  {
    std::lock_guard lock(slot_->mutex);
    slot_->jq = nullptr;
  }
  Watchdog::instance().finished();
}

bool JqDeadline::expired() const {
  std::lock_guard lock(slot_->mutex);
  return slot_->expired;
}

}  // namespace wm::expr
