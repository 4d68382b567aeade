// Exponential back-off with jitter, for retrying the API server: 0.5 s doubling to 30 s, each wait drawn from
// [0.8, 1.2] of the step so that replicas that failed together do not retry together.
#pragma once

#include <atomic>
#include <chrono>
#include <random>

namespace wm::kube {

class Backoff {
 public:
  explicit Backoff(std::chrono::milliseconds initial = std::chrono::milliseconds(500),
                   std::chrono::milliseconds max = std::chrono::seconds(30))
      : initial_(initial), max_(max), step_(initial), random_(std::random_device{}()) {}
  std::chrono::milliseconds next() {
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    auto wait = std::chrono::milliseconds(static_cast<long long>(static_cast<double>(step_.count()) * jitter(random_)));
    step_ = std::min(max_, step_ * 2);
    return wait;
  }
  void reset() { step_ = initial_; }

 private:
  std::chrono::milliseconds initial_, max_, step_;
  std::mt19937 random_;
};

// Sleeps for `duration` unless `stop` turns true first; returns false when stopped.
bool sleep_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop);

}  // namespace wm::kube
