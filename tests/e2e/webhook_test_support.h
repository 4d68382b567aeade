// Helpers shared by the webhook end-to-end tests.
#pragma once

#include <simdjson.h>

#include <string>

#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

namespace wm::test {

struct MutateAnswer {
  std::string uid, patch;
  bool allowed = false;
  std::string warnings;  // joined
};
MutateAnswer parse_answer(const std::string& body);

// Applies `patch` to `object_json` with kubectl's JSON Patch; returns the patched object (REQUIREs success).
std::string kubectl_apply(const std::string& object_json, const std::string& patch);

}  // namespace wm::test
