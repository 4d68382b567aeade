// Keeps the objects that workloads refer to (Definition::references: a TrainJob's TrainingRuntime and
// ClusterTrainingRuntime) in the StateStore's ReferenceStore, one list-and-watch per kind the catalog's definitions
// name, so that admission reads them from memory and never asks the API server; and the ResourceClaimTemplates,
// ResourceClaims and DeviceClasses that pods' DRA claims name, so that admission counts their devices. The same for the
// queues of the policy's schedulers (a profile's `queues`), so that admission can warn of a queue that does not exist.
// A kind leaves the store when nothing names it any more. Until a kind is listed, a workload that refers to it is not
// understood, and the failure policy decides.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "controllers/cluster_context.h"
#include "controllers/kind_watchers.h"
#include "kube/api.h"
#include "kube/discovery.h"
#include "mapper/catalog/definition.h"
#include "policy/admission_state.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

// What to watch, without I/O: each kind the catalog's definitions refer to and each profile's queue kind, by
// group/kind, at the version its first definition names (the API server converts).
std::map<std::string, catalog::GroupVersionKind> referenced_kinds(const policy::AdmissionState& state);
// What to ask discovery about, without I/O: the kind of object each profile a rule uses makes per gang (its podGroup
// template's, its overrides' too), by group/kind. One that is not served gives no gang: admission warns, the log says
// so.
std::map<std::string, catalog::GroupVersionKind> pod_group_kinds(const policy::AdmissionState& state);

class ReferenceWatch {
 public:
  explicit ReferenceWatch(const ClusterContext& cluster)
      : cluster_(cluster), watchers_([this](const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop) {
          watch_kind(kind, stop);
        }) {}
  // Follows the catalog's referenced kinds until `stop`.
  void run(const std::atomic<bool>& stop);
  // Called (from a watch's thread) after a referenced object is held, changed or relisted; set before run().
  void on_change(std::function<void()> changed) { changed_ = std::move(changed); }

 private:
  void watch_kind(const catalog::GroupVersionKind& gvk, const std::atomic<bool>& stop);
  // Asks discovery whether each profile's PodGroup kind is served, and tells the store; says a change in the log.
  void check_pod_group_kinds();

  ClusterContext cluster_;
  std::map<std::string, bool> served_;  // pod_group_kinds() as last found served or not
  std::function<void()> changed_;
  KindWatchers watchers_;  // last: its threads use the members above
};

}  // namespace wm::controllers
