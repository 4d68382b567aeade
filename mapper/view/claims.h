// Devices a pod asks for through Dynamic Resource Allocation (resource.k8s.io), counted as resources so that limits
// see them. Semantics of kubernetes staging/src/k8s.io/api/resource/v1 and core/v1 PodResourceClaim:
// - each pod.spec.resourceClaims entry naming a ResourceClaimTemplate is one claim per pod (two entries naming one
//   template, two claims); an entry naming a ResourceClaim (resourceClaimName) is one claim however many pods name
//   it, counted once per workload; containers[].resources.claims only refer to the entries;
// - a request's count defaults to 1 and allocationMode to ExactCount; adminAccess consumes nothing;
//   resource.k8s.io/v1beta1 writes deviceClassName and count inline, v1 and v1beta2 under `exactly`;
// - an extended resource served by DRA (DeviceClass.extendedResourceName) is a container limit already; the implicit
//   one, deviceclass.resource.kubernetes.io/<class>, counts as its class's resource.
// A DeviceClass counts as the resource the policy maps it to (Kueue's deviceClassMappings, pkg/dra/claims.go), else
// as its DeviceClass's extendedResourceName. What cannot be counted (a template not known yet, allocationMode All,
// firstAvailable alternatives that differ, a class mapped to nothing) is said, never silently dropped: limits refuse
// it where it could break them.
#pragma once

#include <simdjson.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapper/catalog/definition.h"
#include "mapper/view/quantity.h"
#include "mapper/view/references.h"

namespace wm::view {

// The objects claims are read from, which the cluster side watches and the CLI reads from its files.
inline const catalog::GroupVersionKind kResourceClaimTemplate{"resource.k8s.io", "v1", "ResourceClaimTemplate"};
inline const catalog::GroupVersionKind kResourceClaim{"resource.k8s.io", "v1", "ResourceClaim"};
inline const catalog::GroupVersionKind kDeviceClass{"resource.k8s.io", "v1", "DeviceClass"};  // cluster-scoped
inline constexpr std::string_view kImplicitExtendedResourcePrefix = "deviceclass.resource.kubernetes.io/";

// Which resource a DeviceClass's devices count as: policy data (policy/policy.h reads it).
struct DeviceClassMapping {
  // Class name → resource name; an empty resource: devices no limit counts (NVLink channels, daemons).
  std::map<std::string, std::string, std::less<>> resources;
  // firstAvailable alternatives that differ count as the largest of each resource among them, instead of not at all.
  bool first_available_at_largest = false;
};

// Devices that could not be counted, and why.
struct UncountedDevices {
  std::string what;                    // "claim gpu: ResourceClaimTemplate team-a/x is not known ..."
  std::vector<std::string> resources;  // the resources they would count as; empty: any resource at all
};

// Where claims and classes are looked up.
struct ClaimContext {
  const ReferenceStore* store = nullptr;
  const DeviceClassMapping* classes = nullptr;
  std::string_view namespace_name;
};

// One pod's claims: the devices of its own claims (per pod), those of the claims it shares by name (once per
// workload, by "namespace/name"), and what could not be counted.
struct PodClaims {
  ResourceList per_pod;
  std::map<std::string, ResourceList> shared;
  std::vector<UncountedDevices> uncounted;
};

// `claims` is a pod spec's resourceClaims list (absent: no claims).
PodClaims pod_claims(simdjson::dom::element claims, const ClaimContext& context);

// Moves container requests of implicit DRA extended resources (deviceclass.resource.kubernetes.io/<class>) to the
// resource their class counts as; an unmapped class is left where it is and said.
void map_implicit_extended_resources(ResourceList& requests, const ClaimContext& context,
                                     std::vector<UncountedDevices>& uncounted);

}  // namespace wm::view
