// Applies the "add"/"replace" JSON Patch operations this project produces to a JSON document, with
// libjq's jv values (for `mutate -o json|yaml`; tests check patches with kubectl instead).
#pragma once

#include <string>

namespace wm {

// Returns the patched document as indented JSON, or an empty string with `error` set.
std::string apply_json_patch(const std::string& document_json, const std::string& patch_json, std::string& error);

}  // namespace wm
