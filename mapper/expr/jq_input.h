// The jq (jv) copy of an object, made once per document and kept in it, apart so that only jq's users see <jv.h>.
#pragma once

extern "C" {
#include <jv.h>
}

#include <string>

#include "base/json/json_writer.h"
#include "base/json/object_document.h"

namespace wm::expr {

struct JqInput : json::ObjectDocument::EngineCopy {
  explicit JqInput(const std::string& json)
      : value(jv_parse_sized(json.data(), static_cast<int>(json.size()))), bytes(json.size()) {}
  ~JqInput() override { jv_free(value); }
  JqInput(const JqInput&) = delete;
  JqInput& operator=(const JqInput&) = delete;
  jv value;
  size_t bytes;  // the object's JSON text
};

// The document's jq copy, made on first use. libjq is the only engine that keeps one.
inline JqInput& jq_input(json::ObjectDocument& doc) {
  if (!doc.engine_copy()) doc.keep_engine_copy(std::make_unique<JqInput>(json::element_json(doc.root())));
  return static_cast<JqInput&>(*doc.engine_copy());
}

}  // namespace wm::expr
