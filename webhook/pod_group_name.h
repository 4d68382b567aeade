// Kubernetes' own gang scheduling (scheduling.k8s.io/v1beta1, kube-scheduler's GangScheduling plugin) puts a pod in its
// gang by spec.schedulingGroup.podGroupName: set at the pod's creation, immutable, and pruned from the pod templates of
// a CRD made from an older k8s.io/api. A profile names the PodGroup in a pod annotation instead, which every template
// keeps, and each pod's own admission copies it into the field. Kubernetes' API, not a workload type's.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "policy/keys.h"

namespace wm::webhook {

// For a pod being created that carries kPodGroupAnnotation and no spec.schedulingGroup: the JSON patch that sets
// spec.schedulingGroup.podGroupName to `name` (the annotation's value, or the name this admission finishes it as: a
// replica's gang). nullopt when there is nothing to set.
std::optional<std::string> pod_group_name_patch(simdjson::dom::element pod, std::string_view name);

// The annotation's value on `pod`; empty when it has none.
std::string_view pod_group_annotation(simdjson::dom::element pod);

// Two JSON patches of one object as one (their operations touch different fields).
std::string joined_patches(const std::string& first, const std::string& second);

}  // namespace wm::webhook
