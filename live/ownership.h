// Which workload each live object and pod is part of, by ownerReferences: an object whose controller is an object of
// the snapshot that the catalog counts it part of (Catalog::part_of_its_owner: a JobSet's Job, a Deployment's
// ReplicaSet) is that owner's, a pod is its controller's; what has no such owner is a workload. Children are shown
// under their workload, never as workloads of their own.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "live/snapshot.h"
#include "mapper/catalog/catalog.h"

namespace wm::live {

struct WorkloadTree {
  LiveObject root;
  std::vector<size_t> children;      // indexes into Snapshot::objects: every descendant, in snapshot order
  std::vector<size_t> pods;          // indexes into Snapshot::pods
  std::vector<size_t> stand_ins;     // pods holding a place for one of its pods (YuniKorn's placeholders): not its own
  std::vector<size_t> gang_objects;  // indexes into Snapshot::gang_objects owned by the root, a child or a pod
  std::set<std::string> uids;        // of the root, its children and its pods
};

// The workloads of the snapshot, in its order (a pod no workload owns is one when the catalog knows pods).
std::vector<WorkloadTree> workload_trees(const catalog::Catalog& catalog, const Snapshot& snapshot);

}  // namespace wm::live
