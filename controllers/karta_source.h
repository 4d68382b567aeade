// Definitions from the cluster: watches run.ai/v1alpha1 Karta objects, checks each as `lint` does and hands the
// accepted ones to the StateStore (between the built-in catalog and --definitions directories). A Karta whose new
// generation is broken keeps its last accepted one live. Each Karta gets a status condition
// (workload-map.io/Accepted) written by the elected leader: True, or False with the lint messages; and the labels KAI
// Scheduler looks Kartas up by, where they do not name its root kind (controllers/karta_labels.h).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "controllers/cluster_context.h"
#include "controllers/events.h"
#include "controllers/karta_check.h"
#include "controllers/work_queue.h"
#include "kube/api.h"
#include "mapper/catalog/definition.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

class KartaSource {
 public:
  explicit KartaSource(const ClusterContext& cluster) : cluster_(cluster) {}
  // Lists and watches Kartas until `stop`.
  void watch(const std::atomic<bool>& stop);
  // Writes the status conditions and lookup labels that differ from what the objects show, while `leading`, until
  // `stop`.
  void write_statuses(const std::atomic<bool>& stop, const std::atomic<bool>& leading);
  void leadership_changed(bool leading);

  // What the watch calls (the Kartas listed again; one changed), and the writes of one Karta's status and labels:
  // public so that unit tests drive them over a fake API server. A write's error says whether to retry.
  void replaced(std::vector<std::string> objects);
  void changed(bool deleted, const std::string& object);
  Result<void> write_status(const std::string& name);
  Result<void> write_labels(const std::string& name);

 private:
  struct Entry {
    std::string uid;                                  // for Events
    long long generation = -1;                        // of the spec last checked
    std::shared_ptr<const catalog::Definition> live;  // the last accepted definition, in force
    long long live_generation = -1;
    KartaCondition wanted, shown;             // the condition to write, and the one the object has
    std::optional<std::string> labels_patch;  // the lookup labels it lacks, as an apply body
    bool needs_writing() const { return labels_patch || !wanted.same_as(shown); }
  };
  bool update(const std::string& object_json);  // with mutex_ held; true when it checked a new generation
  void publish();                               // with mutex_ held

  ClusterContext cluster_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by Karta name
  WorkQueue statuses_;
};

}  // namespace wm::controllers
