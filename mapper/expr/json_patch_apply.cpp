#include "mapper/expr/json_patch_apply.h"

extern "C" {
#include <jv.h>
}

#include <cstdlib>

#include "base/json/json_pointer.h"

namespace wm::expr {

namespace {

std::string string_of(jv value) {
  std::string out = jv_get_kind(value) == JV_KIND_STRING ? jv_string_value(value) : "";
  jv_free(value);
  return out;
}

}  // namespace

Result<std::string> apply_json_patch(const std::string& document_json, const std::string& patch_json) {
  jv doc = jv_parse_sized(document_json.data(), static_cast<int>(document_json.size()));
  jv patch = jv_parse_sized(patch_json.data(), static_cast<int>(patch_json.size()));
  if (!jv_is_valid(doc) || !jv_is_valid(patch) || jv_get_kind(patch) != JV_KIND_ARRAY) {
    jv_free(doc);
    jv_free(patch);
    return Error{"invalid document or patch"};
  }
  std::string error;
  int n = jv_array_length(jv_copy(patch));
  for (int i = 0; i < n && error.empty(); ++i) {
    jv op = jv_array_get(jv_copy(patch), i);
    std::string kind = string_of(jv_object_get(jv_copy(op), jv_string("op")));
    std::string pointer = string_of(jv_object_get(jv_copy(op), jv_string("path")));
    jv value = jv_object_get(jv_copy(op), jv_string("value"));
    jv_free(op);
    if (kind != "add" && kind != "replace") {
      error = "unsupported operation " + kind;
      jv_free(value);
      break;
    }
    // Tokens become numbers where the parent is an array, as jq paths need; "-" is the end of an array (an append).
    jv path = jv_array();
    for (const auto& token : json::split_pointer(pointer)) {
      jv parent = jv_getpath(jv_copy(doc), jv_copy(path));
      const bool array = jv_get_kind(parent) == JV_KIND_ARRAY;
      const double index = !array         ? 0
                           : token == "-" ? jv_array_length(jv_copy(parent))
                                          : std::strtod(token.c_str(), nullptr);
      jv_free(parent);
      path = jv_array_append(path, array ? jv_number(index) : jv_string(token.c_str()));
    }
    doc = jv_setpath(doc, path, value);
    if (!jv_is_valid(doc)) error = "cannot apply " + kind + " at " + pointer;
  }
  jv_free(patch);
  if (!error.empty()) {
    jv_free(doc);
    return Error{std::move(error)};
  }
  jv text = jv_dump_string(doc, JV_PRINT_PRETTY | JV_PRINT_SPACE1);
  return string_of(text);
}

}  // namespace wm::expr
