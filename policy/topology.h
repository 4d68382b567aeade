// What a profile does with a gang's topology (a rule's `topology`, else its definition's): the labels and annotations
// it writes from it, and the levels it hands to no scheduler. Admission warns of (or refuses) what is dropped;
// `inspect` and `review` show both. Nothing here knows a scheduler: the profile's templates say where each level goes.
#pragma once

#include <string>
#include <vector>

#include "mapper/view/references.h"
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

// The node label keys `object` lists at `levels` (a JSON Pointer, `*` for each item of an array).
std::vector<std::string> object_levels(simdjson::dom::element object, std::string_view levels);

// Why the scheduler cannot place a gang by `topology`: its required level (else its preferred one) is not among the
// levels of the topology objects of `source`'s kind that `held` holds (by_name: the one named as the topology), as
// "no kai.scheduler/v1alpha1 Topology named racks" or "level K is not among the levels of any kueue.x-k8s.io/v1beta2
// Topology (A, B)". Nothing when they agree, or before the cluster side has listed the kind.
std::optional<std::string> missing_topology_level(const TopologySource& source, const view::ReferenceStore& held,
                                                  const catalog::TopologyConstraint& topology);

}  // namespace wm::policy
