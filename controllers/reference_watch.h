// Keeps the objects that workloads refer to (Definition::references: a TrainJob's TrainingRuntime and
// ClusterTrainingRuntime) in the StateStore's ReferenceStore, one list-and-watch per kind the catalog's definitions
// name, so that admission reads them from memory and never asks the API server. A kind leaves the store when no
// definition names it any more. Until a kind is listed, a workload that refers to it is not understood, and the
// failure policy decides.
#pragma once

#include <atomic>
#include <string>

#include "common/log.h"
#include "common/metrics.h"
#include "controllers/kind_watchers.h"
#include "kube/client.h"
#include "kube/discovery.h"
#include "mapper/catalog/definition.h"
#include "webhook/state_store.h"

namespace wm::controllers {

class ReferenceWatch {
 public:
  ReferenceWatch(kube::Client& client, kube::Discovery& discovery, webhook::StateStore& state, Metrics& metrics,
                 const Logger& log)
      : client_(client),
        discovery_(discovery),
        state_(state),
        metrics_(metrics),
        log_(log),
        watchers_([this](const GroupVersionKind& kind, const std::atomic<bool>& stop) { watch_kind(kind, stop); }) {}
  // Follows the catalog's referenced kinds until `stop`.
  void run(const std::atomic<bool>& stop);

 private:
  void watch_kind(const GroupVersionKind& gvk, const std::atomic<bool>& stop);

  kube::Client& client_;
  kube::Discovery& discovery_;
  webhook::StateStore& state_;
  Metrics& metrics_;
  const Logger& log_;
  KindWatchers watchers_;  // last: its threads use the members above
};

}  // namespace wm::controllers
