// PodGroups for schedulers that gang only pods whose PodGroup exists (Volcano, coscheduling): for every workload
// that admission labelled with a profile holding a `podGroup` template, one object per gang, named as its pods name
// it, applied server-side and owned by the workload (the garbage collector removes it with the workload). It
// follows the workload: a scale changes its minMember, a gang that goes away is deleted. Nothing here knows a
// workload type or a scheduler: the catalog gives the gangs, the profile gives the object.
//
// Watches: each kind some profile could need PodGroups for, only objects carrying the profile label. Only the
// elected leader writes; every replica keeps its watches warm, so that a new leader starts at once. What to write is
// decided in pod_group_plan.h, without I/O; this class observes and acts.
#pragma once

#include <simdjson.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "base/result.h"
#include "controllers/cluster_context.h"
#include "controllers/events.h"
#include "controllers/kind_watchers.h"
#include "controllers/owned_pod_groups.h"
#include "controllers/pod_group_plan.h"
#include "controllers/work_queue.h"
#include "kube/api.h"
#include "kube/backoff.h"
#include "kube/discovery.h"
#include "kube/reflector.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

class PodGroupController {
 public:
  explicit PodGroupController(const ClusterContext& cluster)
      : cluster_(cluster),
        watchers_(
            [this](const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop) { watch_kind(kind, stop); }),
        owned_(cluster.api, std::string(kOwnerUidLabel)) {}
  ~PodGroupController();
  // Keeps a watch on each kind the policy and catalog make relevant (rechecked as they reload), until `stop`.
  void watch(const std::atomic<bool>& stop);
  // Reconciles queued workloads while `leading`, until `stop`. Several threads may run it (kReconcileWorkers):
  // a create storm then waits on the API server's round trips in parallel.
  void reconcile(const std::atomic<bool>& stop, const std::atomic<bool>& leading);
  static constexpr int kReconcileWorkers = 4;
  void leadership_changed(bool leading);

  // What the watches call (a workload of kind `kind_key` changed), and one worker's step for one key: public so that
  // unit tests drive them over a fake API server. The step's error says whether to retry (retryable(code)).
  void changed(const std::string& kind_key, kube::EventType type, const std::string& object);
  Result<void> reconcile_one(const std::string& key);
  // The referenced objects changed (ReferenceWatch): the workloads whose PodGroups wait for one are looked at again.
  void references_changed();

 private:
  void watch_kind(const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop);
  void relisted(const std::string& kind_key, const std::vector<std::string>& objects);
  struct Applied {
    std::string uid;
    std::map<PodGroupPlace, std::string> objects;  // body applied ("" for one found, not written)
  };
  void forget(const std::string& key);
  void report_failure(const std::string& key, simdjson::dom::element root, const Error& error);
  bool waits(const std::string& key, simdjson::dom::element root, const std::string& waits_for);
  Result<void> apply(const std::string& key, simdjson::dom::element root, const PodGroupWrites& writes,
                     Applied& applied);
  Result<void> adopt(const std::string& uid, const DesiredPodGroups& desired, Applied& applied);
  Result<void> prune(const std::string& key, simdjson::dom::element root, const PodGroupWrites& writes,
                     Applied& applied);
  // The PodGroups this controller made for a workload, as the API server lists them.
  Result<std::set<PodGroupPlace>> existing(const std::string& object_uid, const std::set<std::string>& resource_paths);

  ClusterContext cluster_;
  KindWatchers watchers_;  // stopped first, by the destructor: their threads use what follows

  std::mutex mutex_;
  std::map<std::string, std::string> objects_;  // key (kind|namespace/name) -> the workload, as JSON
  std::set<std::string> waiting_;               // keys whose plan waits for a referenced object (waits_for)
  // What this leader has written, by key. The mutex guards the map only: a worker holds a key's entry (the queue
  // gives a key to one worker at a time) while it writes, so neither watches nor other workers wait on the API
  // server. A new leader drops the map; an entry a worker still holds then goes with it.
  std::mutex applied_mutex_;
  std::map<std::string, std::shared_ptr<Applied>> applied_;
  std::map<std::string, kube::Backoff> backoff_;  // by key, for the retry delay; under applied_mutex_
  WorkQueue queue_;
  OwnedPodGroups owned_;
};

}  // namespace wm::controllers
