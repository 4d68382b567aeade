// Lease-based leader election (coordination.k8s.io/v1), as client-go's leaderelection does: the holder renews the
// Lease every retry period; another candidate takes it only when it has not seen the Lease change for a whole lease
// duration (its own clock, never the holder's); a holder that cannot renew within the renew deadline stops leading.
// Writes are optimistic (the Lease's resourceVersion), so two candidates never both win.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "kube/api.h"

namespace wm::kube {

struct LeaderElectionOptions {
  std::string namespace_name, name, identity;
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
};

struct LeaseRecord {
  std::string holder;
  long long duration_seconds = 0;
  std::string acquire_time, renew_time;
  long long transitions = 0;
  std::string resource_version;
  bool same_as(const LeaseRecord& o) const {
    return holder == o.holder && renew_time == o.renew_time && resource_version == o.resource_version;
  }
};

// Whether `identity` may write the Lease now: it holds it, nobody does, or the holder has not renewed it for a whole
// duration since `observed` (when this candidate last saw the record change).
bool may_take_lease(const LeaseRecord& record, const std::string& identity,
                    std::chrono::steady_clock::time_point observed, std::chrono::steady_clock::time_point now);

class LeaderElection {
 public:
  LeaderElection(Api& api, LeaderElectionOptions options, std::function<void(bool leading)> on_change,
                 std::function<void(const std::string& problem)> on_problem)
      : api_(api), options_(std::move(options)), on_change_(std::move(on_change)), on_problem_(std::move(on_problem)) {}
  // Campaigns and renews until `stop`; then gives the Lease up if it holds it, so that another replica takes over
  // at once instead of after the lease duration.
  void run(const std::atomic<bool>& stop);
  bool leading() const { return leading_.load(); }

 private:
  enum class Attempt { Holds, HeldByAnother, Failed };
  Attempt try_acquire_or_renew();
  void release();
  void set_leading(bool leading);

  Api& api_;
  LeaderElectionOptions options_;
  std::function<void(bool)> on_change_;
  std::function<void(const std::string&)> on_problem_;
  std::atomic<bool> leading_{false};
  LeaseRecord observed_;
  std::chrono::steady_clock::time_point observed_at_{};
};

// The API server's MicroTime format for now: 2026-12-03T04:05:06.123456Z.
std::string micro_time_now();

}  // namespace wm::kube
