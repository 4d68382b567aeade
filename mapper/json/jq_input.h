// The jq (jv) copy of an object, kept apart so that only jq's users see <jv.h>.
#pragma once

extern "C" {
#include <jv.h>
}

#include <string>

#include "mapper/json/object_document.h"

namespace wm::json {

struct ObjectDocument::JqInput {
  explicit JqInput(const std::string& json) : value(jv_parse_sized(json.data(), static_cast<int>(json.size()))) {}
  ~JqInput() { jv_free(value); }
  JqInput(const JqInput&) = delete;
  JqInput& operator=(const JqInput&) = delete;
  jv value;
};

}  // namespace wm::json
