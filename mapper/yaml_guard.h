// yaml-cpp parses nesting by recursion and has no depth limit: "[[[[..." a hundred thousand deep
// overflows the stack. Text nested deeper than any manifest or definition is refused before parsing.
#pragma once

#include <optional>
#include <string>

namespace wm {

// A message when `text` nests flow collections ([ {) or block indentation deeper than `limit`.
std::optional<std::string> yaml_nesting_too_deep(const std::string& text, size_t limit = 200);

}  // namespace wm
