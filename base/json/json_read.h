// Reading fields of a parsed (simdjson DOM) object where absence and a wrong type both mean "not set".
#pragma once

#include <simdjson.h>

#include <string_view>

namespace wm::json {

// The string at a JSON pointer; empty when absent or not a string. Views into the parsed document.
inline std::string_view string_at(simdjson::dom::element e, std::string_view pointer) {
  std::string_view s;
  return e.at_pointer(pointer).get_string().get(s) == simdjson::SUCCESS ? s : std::string_view();
}

// The string member `key` of an object; empty when `e` is not an object or the member is absent or not a string.
inline std::string_view string_member(simdjson::dom::element e, std::string_view key) {
  std::string_view s;
  if (e.is_object() && e.get_object().value_unsafe().at_key(key).get_string().get(s) == simdjson::SUCCESS) return s;
  return {};
}

// Calls `each` with every element at `pattern`: a JSON Pointer whose "*" tokens stand for each item of an array
// (/spec/levels/*/nodeLabel); nothing where a part is absent.
template <class F>
void for_each_at(simdjson::dom::element at, std::string_view pattern, F&& each) {
  const size_t star = pattern.find("/*");
  if (star == std::string_view::npos) {
    simdjson::dom::element found;
    if (at.at_pointer(pattern).get(found) == simdjson::SUCCESS) each(found);
    return;
  }
  simdjson::dom::array items;
  if (at.at_pointer(pattern.substr(0, star)).get(items) != simdjson::SUCCESS) return;
  for (simdjson::dom::element item : items) for_each_at(item, pattern.substr(star + 2), each);
}

// "group/version" → {group, version}; "v1" (the core group) → {"", "v1"}.
inline std::pair<std::string_view, std::string_view> split_api_version(std::string_view api_version) {
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return {{}, api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

}  // namespace wm::json
