// What the PodGroup controller decides, without I/O: which kinds to watch, which PodGroups one workload should have,
// and which writes take what was applied to what should be. PodGroupController (pod_groups.h) observes and acts;
// tests/unit/controllers/pod_groups_test.cpp checks these against the catalog's real fixtures, with no API server.
// After KAI's podgrouper: a plugin computes plain metadata, one handler applies it.
#pragma once

#include <simdjson.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "kube/discovery.h"
#include "mapper/catalog/definition.h"
#include "policy/admission_state.h"
#include "policy/keys.h"

namespace wm::controllers {

// A PodGroup's place: (namespaced collection path, name).
using PodGroupPlace = std::pair<std::string, std::string>;

// What should exist for one workload: the profile's PodGroup for each gang, as admission named it on the pods, and
// the profile's workload object (Kubernetes' Workload) that they name, if any.
struct DesiredPodGroups {
  std::map<PodGroupPlace, std::string> bodies;      // the server-side apply body of each
  std::map<std::string, kube::Resource> resources;  // by namespaced collection path
  std::optional<PodGroupPlace> workload;            // the workload object among the bodies: written first
  std::string no_workload;                          // why the profile's workload object is not made, if it is not
  // Its pods are in an object not held yet (a WorkflowTemplate): nothing is planned, and what it has stays, until the
  // object comes (PodGroupController::references_changed). Why, when so.
  std::string waits_for;
};

// The kinds some rule's profile makes PodGroups for, by group/kind, at the version of the kind's first definition
// (the API server converts).
std::map<std::string, catalog::GroupVersionKind> kinds_needing_pod_groups(const policy::AdmissionState& state);

// The PodGroups `workload` should have under the profile admission labelled it with: none (and any it has go) when
// the profile writes no PodGroup. Fails Invalid when its kind or profile is no longer known, or the workload is not
// understood (nothing to do until it changes; what it has stays), with find's error when a PodGroup's kind is not
// served (retry), Internal when an object cannot be built. Waits (waits_for) while its pods are in an object not held.
Result<DesiredPodGroups> plan_pod_groups(const policy::AdmissionState& state, simdjson::dom::element workload,
                                         const kube::FindResource& find);

// The writes that take `applied` (what this leader last wrote, by place; "" for one it found but did not write) to
// `desired`: apply what differs (the workload object first, so that the PodGroups name one that exists), delete what
// is no longer desired.
struct PodGroupWrites {
  std::vector<std::pair<PodGroupPlace, const std::string*>> apply;  // bodies point into the desired set
  std::vector<PodGroupPlace> remove;
};
PodGroupWrites plan_pod_group_writes(const DesiredPodGroups& desired,
                                     const std::map<PodGroupPlace, std::string>& applied);

}  // namespace wm::controllers
