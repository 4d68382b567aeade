// What the Karta source decides, without I/O: the condition a Karta's spec earns (checked as `lint` checks a file),
// the condition its status shows, and the status write that takes one to the other. KartaSource (karta_source.h)
// watches and writes; tests/unit/controllers/karta_source_test.cpp checks these against the catalog's own files.
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mapper/catalog/definition.h"
#include "policy/keys.h"

namespace wm::controllers {

// The workload-map.io/Accepted condition: True with reason Accepted, or False with reason Invalid and the problems.
struct KartaCondition {
  std::string status, reason, message, last_transition;
  long long observed_generation = -1;
  bool accepted() const { return status == "True"; }
  bool same_as(const KartaCondition& o) const {
    return status == o.status && reason == o.reason && message == o.message &&
           observed_generation == o.observed_generation;
  }
};

// The condition as the object's status shows it (empty when it has none).
KartaCondition shown_condition(simdjson::dom::element karta);

struct KartaVerdict {
  std::shared_ptr<const catalog::Definition> accepted;  // null when refused
  KartaCondition condition;
  std::string problems;  // the lint messages, one per line, when refused
};
// Checks the Karta `object_json` (named `name`, at `generation`). `live_generation` is the generation still in force
// from an earlier check, or -1: a refusal says that it stays.
KartaVerdict check_karta(const std::string& object_json, const std::string& name, long long generation,
                         long long live_generation);

// The server-side apply body of a Karta's status, and whether it changes the condition (an Event then says so).
struct KartaStatusWrite {
  std::string body;
  bool transition = false;
};
// Nothing when `shown` already says `wanted`. The transition time moves only when the status does (`now`, RFC 3339).
std::optional<KartaStatusWrite> plan_karta_status(const std::string& name, const KartaCondition& wanted,
                                                  const KartaCondition& shown, const std::string& now);

}  // namespace wm::controllers
