// Why a workload waits, in one place: its scheduler's words (the waiting conditions of the objects its profile's
// gangStatus names), its pods' PodScheduled messages, the Events on the workload, its objects and its gang objects, and
// what workload-map itself knows: a queue the scheduler does not have, a gang object kind the cluster does not serve, a
// gang or a pod larger than the cluster's GPUs, devices it could not count, pods the API server will refuse.
#pragma once

#include <string>
#include <vector>

#include "live/inventory.h"

namespace wm::live {

struct Reason {
  std::string source;  // "PodGroup pg-train-1", "pod train-0 (3 pods)", "event Unschedulable on Job/x", "workload-map"
  std::string text;
};

std::vector<Reason> why_waiting(const policy::AdmissionState& state, const Snapshot& snapshot,
                                const LiveWorkload& workload);

}  // namespace wm::live
