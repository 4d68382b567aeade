// The API server's rules for a pod's container resources, checked on the pod templates of a workload at its admission:
// a workload whose templates break them is stored (a CRD's schema does not check them), and then every pod its
// controller makes is refused, with an Event on a child nobody looks at. After Kubernetes v1.37
// pkg/apis/core/validation validateResourceRequirements and validateContainerResourceName, and
// pkg/apis/core/helper (IsOvercommitAllowed, IsExtendedResourceName, IsHugePageResourceName); the messages are its own.
#pragma once

#include <simdjson.h>

#include <string>
#include <vector>

#include "mapper/view/workload_view.h"

namespace wm::view {

// Each way the containers and init containers of `pod_spec` break those rules, as "container NAME: FIELD: MESSAGE"
// (for instance `container main: resources.requests[nvidia.com/gpu] "500m": must be an integer`).
std::vector<std::string> pod_resource_breaches(simdjson::dom::element pod_spec);

// The breaches build_view found in every pod template of `view` (InstanceView::pod_rule_breaches), each as
// "pod template COMPONENT/INSTANCE, " + breach.
std::vector<std::string> pod_template_breaches(const WorkloadView& view);

}  // namespace wm::view
