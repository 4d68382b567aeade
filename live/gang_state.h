// A gang's state as its scheduler records it, read by the profile's gangStatus (policy::GangStatusSource): the
// object's minimum, its phase or the reason of the condition that says it waits, and the scheduler's own words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "live/snapshot.h"
#include "policy/policy.h"

namespace wm::live {

struct GangState {
  std::string api_version, kind, name;  // the object that holds it (scheduling.run.ai/v2alpha2 PodGroup pg-train-7d1c)
  std::optional<long long> min_member;
  std::string state;  // the waiting condition's reason (else its type), else the phase; "" when neither says
  bool waiting = false;
  std::vector<std::string> reasons;  // the scheduler's words, each once
};

GangState gang_state(const policy::GangStatusSource& source, const LiveObject& object);

}  // namespace wm::live
