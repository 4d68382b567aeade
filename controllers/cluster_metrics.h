// The cluster side's metric families, named and described once. All are declared when the cluster side starts, so
// that a scraper (and the chart's alerts and dashboard) finds each family before its first series.
#pragma once

#include <string>
#include <string_view>

#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

inline constexpr MetricFamily kLeaderMetric{"workload_map_leader", "gauge",
                                            "1 while this replica holds the Lease and writes to the cluster."};
inline constexpr MetricFamily kWatchUpMetric{
    "workload_map_watch_up", "gauge",
    "1 while the watch of this resource is live; 0: what the webhook knows of it may be stale."};
inline constexpr MetricFamily kWatchFailuresMetric{"workload_map_watch_failures_total", "counter",
                                                   "Lists and watches that failed, by resource."};
inline constexpr MetricFamily kKartasMetric{"workload_map_kartas", "gauge",
                                            "Karta objects in the cluster by the result of their last check."};
inline constexpr MetricFamily kPodGroupErrorsMetric{"workload_map_pod_group_errors_total", "counter",
                                                    "PodGroup writes that failed."};
inline constexpr MetricFamily kPodGroupsAppliedMetric{"workload_map_pod_groups_applied_total", "counter",
                                                      "PodGroups created or changed."};
inline constexpr MetricFamily kPodGroupsDeletedMetric{"workload_map_pod_groups_deleted_total", "counter",
                                                      "PodGroups of gangs a workload no longer has."};
inline constexpr MetricFamily kWebhookRulesAddedMetric{"workload_map_webhook_rules_added_total", "counter",
                                                       "Kinds added to the webhook configurations' rules."};

inline void declare_cluster_metrics(Metrics& metrics) {
  for (const MetricFamily& f :
       {kLeaderMetric, kWatchUpMetric, kWatchFailuresMetric, kKartasMetric, kPodGroupErrorsMetric,
        kPodGroupsAppliedMetric, kPodGroupsDeletedMetric, kWebhookRulesAddedMetric})
    metrics.declare(f);
}

// What every watch of the cluster side says when it fails (retried by its reflector) and when it is live again: the
// watch_up gauge, the failures counter, and a warning that names what may be stale meanwhile.
inline void report_watch_failed(Metrics& metrics, const Logger& log, const std::string& resource,
                                const std::string& problem, std::string_view stale) {
  metrics.set_gauge(kWatchUpMetric, {{"resource", resource}}, 0);
  metrics.add_counter(kWatchFailuresMetric, {{"resource", resource}});
  log.log(LogLevel::Warn, "watch failed; " + std::string(stale) + " may be stale until it recovers",
          {{"resource", resource}, {"problem", problem}});
}
inline void report_watch_live(Metrics& metrics, const std::string& resource) {
  metrics.set_gauge(kWatchUpMetric, {{"resource", resource}}, 1);
}

}  // namespace wm::controllers
