// Keeps the cluster's topology domains (mapper/view/node_domains.h) in the StateStore's ReferenceStore: one
// list-and-watch of Nodes while the policy or the catalog names a topology, holding of each node only its values of
// the topology's label keys and its allocatable, summed again at most once a second after a change. Admission reads the
// sums to warn of a gang larger than the largest domain of its required level, never asking the API server.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/cluster_context.h"
#include "controllers/kind_watchers.h"
#include "mapper/view/node_domains.h"
#include "policy/admission_state.h"

namespace wm::controllers {

// The node label keys the policy's topologies, its rules' and the catalog's gang topologies name, sorted; without
// I/O. None: the Nodes are not watched.
std::vector<std::string> topology_label_keys(const policy::AdmissionState& state);

class NodeWatch {
 public:
  explicit NodeWatch(const ClusterContext& cluster)
      : cluster_(cluster),
        watchers_([this](const catalog::GroupVersionKind&, const std::atomic<bool>& stop) { watch_nodes(stop); }) {}
  // Follows the label keys the policy names, and the Nodes, until `stop`.
  void run(const std::atomic<bool>& stop);

 private:
  void watch_nodes(const std::atomic<bool>& stop);
  void publish();  // the sums of nodes_, into the store, when they changed

  ClusterContext cluster_;
  std::mutex mutex_;  // nodes_, keys_, changed_: the watch's thread writes, run()'s publishes
  std::map<std::string, view::NodeRoom, std::less<>> nodes_;
  std::vector<std::string> keys_;
  bool listed_ = false, changed_ = false;
  KindWatchers watchers_;  // last: its thread uses the members above
};

}  // namespace wm::controllers
