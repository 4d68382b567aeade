// What a watch cache keeps of an object. metadata.managedFields (server-side apply's field ownership) is often as
// large as the spec and no definition or profile reads it, so caches drop it: controller-runtime's
// cache.TransformStripManagedFields, kube-scheduler's informers, YuniKorn's k8shim since YUNIKORN-3447.
#pragma once

#include <simdjson.h>

#include <string>

namespace wm::kube {

// The object as minified JSON, without metadata.managedFields.
std::string without_managed_fields(simdjson::dom::element object);

}  // namespace wm::kube
