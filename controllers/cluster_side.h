// Everything workload-map does with its cluster, beside admission and never on its path: Karta objects in as
// definitions, PodGroups out, a Lease to decide which replica writes. Admission reads only the StateStore, so an
// API server that is slow or gone slows nothing; what may be stale is said in logs and metrics.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "kube/api.h"
#include "kube/config.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

struct ClusterOptions {
  kube::Config config;
  bool kartas = true;             // definitions from Karta objects
  bool pod_groups = true;         // PodGroups for the profiles that have a podGroup template
  bool workload_metrics = false;  // every workload's demand as gauges (controllers/workload_demand.h)
  // The webhook configurations whose rules follow the catalog; empty for none.
  std::string webhook_configuration = "workload-map";
  std::string lease_namespace, lease_name = "workload-map", identity;
};

class ClusterSide {
 public:
  ClusterSide(ClusterOptions options, policy::StateStore& state, Metrics& metrics, const Logger& log);
  ~ClusterSide();
  // Starts the watches and the election; fails when the configuration cannot be used.
  Result<void> start();
  // The same over `api` (a fake API server, in unit tests).
  Result<void> start(std::unique_ptr<kube::Api> api);
  // Stops every thread; a leader gives its Lease up.
  void stop();

 private:
  struct Parts;
  void start_threads();  // each part's, once parts_ holds them
  ClusterOptions options_;
  policy::StateStore& state_;
  Metrics& metrics_;
  const Logger& log_;
  std::unique_ptr<Parts> parts_;
  std::atomic<bool> stop_{false}, leading_{false};
  std::vector<std::thread> threads_;
};

}  // namespace wm::controllers
