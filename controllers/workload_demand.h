// GPU demand as metrics (opt-in: `serve --workload-metrics`): every workload of the catalog's kinds as `get` sees it
// (live/inventory.h), summed per namespace, kind and phase into gauges on /metrics (live/demand.h): how many
// workloads, their pods, what they request, and how many of their gangs wait. Watches each kind the catalog knows, the
// pods and the profiles' gang objects, keeping of each only what the view needs (live/live_store.h); a change makes
// again only the workload it is part of, once per batch. Every replica counts (each serves its own /metrics); nothing
// here writes to the cluster, and admission never waits on it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "controllers/cluster_context.h"
#include "controllers/kind_watchers.h"
#include "kube/reflector.h"
#include "live/demand.h"
#include "live/live_store.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

inline constexpr MetricFamily kWorkloadsMetric{"workload_map_workloads", "gauge",
                                               "Workloads by namespace, kind and phase (as workload-map get says)."};
inline constexpr MetricFamily kWorkloadPodsMetric{
    "workload_map_workload_pods", "gauge",
    "Their pods: expected (as the definition counts them), scheduled (bound to a node), running."};
inline constexpr MetricFamily kWorkloadRequestsMetric{
    "workload_map_workload_requests", "gauge",
    "What their pods request, by resource (GPUs, DRA devices, cpu in cores, memory in bytes)."};
inline constexpr MetricFamily kGangsWaitingMetric{
    "workload_map_gangs_waiting", "gauge", "Gangs their scheduler records waiting, by namespace, kind and scheduler."};
inline constexpr MetricFamily kLiveObjectsMetric{"workload_map_live_objects", "gauge",
                                                 "Objects held for the workload metrics, by role (object, pod, gang)."};
inline constexpr MetricFamily kLiveBytesMetric{"workload_map_live_object_bytes", "gauge",
                                               "JSON held for the workload metrics (what is kept of each object)."};
inline constexpr MetricFamily kLiveUpdateMetric{
    "workload_map_live_update_seconds", "gauge",
    "How long the last update of the workload metrics took, from the first change it took in to its gauges set."};

// What to watch, without I/O: each kind the catalog defines (by group/kind), the pods, the profiles' gang objects.
std::map<std::string, catalog::GroupVersionKind> live_kinds(const policy::AdmissionState& state);

class WorkloadDemandWatch {
 public:
  explicit WorkloadDemandWatch(const ClusterContext& cluster);
  ~WorkloadDemandWatch();
  // Keeps a watch on each kind live_kinds() names, rechecked as the catalog and policy reload, until `stop`.
  void watch(const std::atomic<bool>& stop);
  // Makes the workloads that changed again, a batch at a time, and sets the gauges, until `stop`.
  void publish(const std::atomic<bool>& stop);
  // The referenced objects changed (ReferenceWatch): every workload is made again, at most once per kEverythingEvery.
  void references_changed();

  // What the watches call and one round of publish(): public so that unit tests and benchmarks drive them.
  void relisted(const catalog::GroupVersionKind& kind, const std::vector<std::string>& objects);
  void changed(const catalog::GroupVersionKind& kind, kube::EventType type, const std::string& object);
  void publish_once();
  // What a watch of `kind` keeps of each object.
  kube::KeepObject keep_for(const catalog::GroupVersionKind& kind) const;

  static constexpr std::chrono::milliseconds kBatch{200};
  static constexpr std::chrono::seconds kEverythingEvery{30};

 private:
  void watch_kind(const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop);
  std::set<std::string> take_touched(const policy::AdmissionState& state, std::chrono::steady_clock::time_point& since);
  void remake(const std::string& uid, const policy::AdmissionState& state);
  live::LiveRole role_of(const catalog::GroupVersionKind& kind) const;

  ClusterContext cluster_;
  std::mutex mutex_;  // store_, touched_, everything_, the first change's time
  std::condition_variable touched_changed_;
  live::LiveStore store_;
  std::set<std::string> touched_;  // uids of workloads to make again
  bool everything_ = false, references_changed_ = false;
  std::chrono::steady_clock::time_point first_touch_{}, last_everything_{};
  // publish()'s own: what the workloads were made with, what each asks, the sums.
  std::shared_ptr<const catalog::Catalog> catalog_;
  std::shared_ptr<const policy::Policy> policy_;
  std::map<std::string, live::WorkloadDemand> demands_;  // by workload uid
  live::DemandTotals totals_;
  KindWatchers watchers_;  // last: its threads use the members above
};

}  // namespace wm::controllers
