// What every controller of the cluster side works with: the API server, the live catalog and policy, and where it
// reports. ClusterSide owns each of these; a controller keeps the references.
#pragma once

#include "controllers/events.h"
#include "kube/api.h"
#include "kube/discovery.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

struct ClusterContext {
  kube::Api& api;
  kube::Discovery& discovery;
  policy::StateStore& state;
  Metrics& metrics;
  const Logger& log;
  EventRecorder& events;
};

}  // namespace wm::controllers
