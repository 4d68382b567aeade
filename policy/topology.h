// What a profile does with a gang's topology (a rule's `topology`, else its definition's): the labels and annotations
// it writes from it, and the levels it hands to no scheduler. Admission warns of (or refuses) what is dropped;
// `inspect` and `review` show both. Nothing here knows a scheduler: the profile's templates say where each level goes.
#pragma once

#include <string>
#include <vector>

#include "mapper/view/workload_view.h"
#include "policy/policy.h"

namespace wm::policy {

// The workload's topology: its first gang's (a rule's topology is every gang's); null without one.
const catalog::TopologyConstraint* first_topology(const view::WorkloadView& view);

// Each level of the gangs' topology that `edits` write nowhere a scheduler reads, as "its gangs' required level K of
// topology T". Empty for gangs without a topology.
std::vector<std::string> dropped_topology(const ProfileEdits& edits, const view::WorkloadView& view);

// "podAnnotations kueue.x-k8s.io/podset-required-topology=K", one per label or annotation of `edits` that the first
// gang's topology gives a value (the objects made per gang are shown whole elsewhere).
std::vector<std::string> topology_writes(const ProfileEdits& edits, const view::WorkloadView& view);

}  // namespace wm::policy
