// What one admission reads: the catalog, the policy and the referenced objects in force when it started. Swapped
// whole by the StateStore; never changed in place, so a review holds its copy without a lock.
#pragma once

#include <memory>

#include "mapper/catalog/catalog.h"
#include "mapper/view/references.h"
#include "policy/policy.h"

namespace wm::policy {

struct AdmissionState {
  std::shared_ptr<const catalog::Catalog> catalog;
  std::shared_ptr<const Policy> policy;
  // Objects that workloads refer to, as the cluster side last saw them (mapper/view/references.h); may be null.
  std::shared_ptr<const view::ReferenceStore> references;
};

}  // namespace wm::policy
