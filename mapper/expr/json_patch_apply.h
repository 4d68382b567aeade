// Applies the "add"/"replace" JSON Patch operations this project produces to a JSON document, with
// libjq's jv values (for `mutate -o json|yaml`; tests check patches with kubectl instead).
#pragma once

#include <string>

#include "base/result.h"

namespace wm::expr {

// The patched document as indented JSON.
Result<std::string> apply_json_patch(const std::string& document_json, const std::string& patch_json);

}  // namespace wm::expr
