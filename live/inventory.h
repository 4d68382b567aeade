// The live cluster as workloads: each workload of the snapshot with its view (the definition's components, pods,
// requests and status phases), the live pods it owns, the gangs its scheduler records, its scheduler and queue, and
// one phase. What `get` prints a row of and `describe` a page of; a pure function of the snapshot.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "live/gang_state.h"
#include "live/live_phase.h"
#include "live/ownership.h"
#include "live/snapshot.h"
#include "mapper/view/workload_view.h"
#include "policy/admission_state.h"

namespace wm::live {

struct LivePod {
  std::string name, phase, node;
  std::string owner;      // its controller, "Job/train-workers-0" ("" for none)
  std::string waiting;    // why it is not scheduled, as its PodScheduled=False condition says
  bool stand_in = false;  // holds a place for one of the workload's pods (not counted as one)
};

struct LiveWorkload {
  std::string api_version, kind, namespace_name, name;
  std::string profile;      // the policy's profile for it ("" when no rule matches)
  view::WorkloadView view;  // with the definition's phases; view.definition is null for a kind no definition reads
  std::string phase;
  PodCounts pods;
  long long gpus = 0;
  std::string scheduler, queue;  // "" when none is known
  std::vector<GangState> gangs;
  long long gang_minimum = 0;  // the gangs' minimums: as their scheduler's objects say, else as the view counts
  std::vector<LivePod> pod_list;
  WorkloadTree tree;
};

// The workloads whose roots `wanted` accepts (all without it), in the snapshot's order.
std::vector<LiveWorkload> live_workloads(const policy::AdmissionState& state, const Snapshot& snapshot,
                                         const std::function<bool(const LiveObject&)>& wanted = {});

// "0/5 Unschedulable": the pods bound of the gangs' minimum, and the state its scheduler records; "-" without a gang.
std::string gang_summary(const LiveWorkload& workload);

}  // namespace wm::live
