// RFC 6901 JSON Pointer helpers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wm {

// Appends "/" + token with "~" -> "~0" and "/" -> "~1".
void append_pointer_token(std::string& pointer, std::string_view token);
std::string pointer_child(std::string_view pointer, std::string_view token);
// Splits "/a/b~1c" into {"a", "b/c"}; the empty pointer is the whole document.
std::vector<std::string> split_pointer(std::string_view pointer);

}  // namespace wm
