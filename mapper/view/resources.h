// Resource requests with Kubernetes semantics: a container's request defaults to its limit; a pod asks
// for max(sum of containers and sidecars, the largest init container plus the sidecars started before
// it) plus its overhead.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <vector>

#include "mapper/view/quantity.h"

namespace wm::view {

// A quantity as the object writes it: a string ("500m", "4Gi") or a JSON number; nothing when it is neither, or not
// one.
std::optional<Quantity> quantity_of(simdjson::dom::element value);

// `resources` is a ResourceRequirements object ({requests, limits}).
ResourceList requirements_requests(simdjson::dom::element resources, std::vector<std::string>& warnings);
ResourceList container_requests(simdjson::dom::element container, std::vector<std::string>& warnings);
// Sum over a list of containers.
ResourceList containers_requests(simdjson::dom::element containers, std::vector<std::string>& warnings);
ResourceList pod_requests(simdjson::dom::element pod_spec, std::vector<std::string>& warnings);

// Names of the containers (init containers included) that ask for a GPU (a resource named */gpu) in
// their limits but do not request every one of `required` (e.g. cpu and memory).
std::vector<std::string> gpu_containers_missing_requests(simdjson::dom::element pod_spec,
                                                         const std::vector<std::string>& required);
bool is_gpu_resource(std::string_view name);
// GPUs of any vendor (nvidia.com/gpu, amd.com/gpu, ...), whole units.
long long gpu_count(const ResourceList& list);

}  // namespace wm::view
