// Maps an object's status to the common phases (initializing, running, completed, failed, degraded,
// suspended, suspending, resuming) by the definition's statusMappings. Several may hold at once.
#pragma once

#include <string>
#include <vector>

#include "mapper/catalog/definition.h"

namespace wm::view {

// Returns the matching states in definition order, or {"Undefined"} when none matches.
std::vector<std::string> evaluate_status(const catalog::StatusDefinition& status, json::ObjectDocument& doc,
                                         std::vector<std::string>& problems);

}  // namespace wm::view
