// A create storm for the fault tests: the scale benchmark's workload mix (tests/bench/scale/workload_mix), created
// through the API server at a fixed rate while a test breaks something, and the check of what must hold once
// things settle: every stored workload edited by the webhook whole (or, where the failure policy is Ignore and the
// webhook could not be reached, not at all; never in part), every edited one owning exactly the PodGroups
// `inspect --profile` gives it, no PodGroup without its workload.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/bench/scale/workload_mix.h"

namespace wm::test {

class Storm {
 public:
  // Starts sending `count` workloads into `ns` at `per_second`, their pods selecting no node (they stay Pending).
  Storm(const std::string& ns, int count, double per_second);
  ~Storm();
  size_t sent() const { return sent_.load(); }
  void wait_sent(size_t n) const;  // until n creates have been sent
  void finish();                   // until every create has been answered
  // Creates the API server accepted (201), and the others, which its outage refused.
  size_t accepted() const;
  size_t refused() const { return workloads_.size() - accepted(); }

  struct Settled {
    bool ok = false;
    std::string problem;  // what is still wrong, for the test's message
    size_t stored = 0, unedited = 0, pod_groups = 0;
  };
  // What the cluster holds now, against what `profile` says it must. `unedited_allowed`: the webhook
  // configuration's failurePolicy is Ignore, so a create it could not answer is stored as sent.
  Settled check(const std::string& profile, bool unedited_allowed) const;
  // Repeats check() until it holds or `timeout` passes; the time it took goes to `took`.
  Settled settle(const std::string& profile, bool unedited_allowed, std::chrono::seconds timeout,
                 std::chrono::milliseconds& took) const;

 private:
  std::string ns_;
  std::vector<bench::Workload> workloads_;
  std::vector<int> statuses_;
  std::atomic<size_t> sent_{0};
  std::vector<std::thread> senders_;
};

}  // namespace wm::test
