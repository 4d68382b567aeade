// The files the server serves from, reloaded when they change: the serving certificate, and the catalog and policy
// of the admission state. A file that does not load leaves the last good one live.
#pragma once

#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "webhook/tls.h"

namespace wm::webhook {

// Each outcome is logged, then counted (workload_map_config_reloads_total), so whoever sees the metric change finds the
// log.
void reload_changed_files(TlsContexts& tls, policy::StateStore& state, Metrics& metrics, const Logger& log);

}  // namespace wm::webhook
