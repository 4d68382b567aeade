// yaml-cpp parses nesting by recursion and has no depth limit: "[[[[..." a hundred thousand deep
// overflows the stack. Text nested deeper than any manifest or definition is refused before parsing.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace wm::yaml {

// A message when `text` nests flow collections ([ {) or block indentation deeper than `limit`.
std::optional<std::string> yaml_nesting_too_deep(const std::string& text, size_t limit = 200);

// YAML::LoadAll, but a text yaml-cpp 0.7 cannot get past ends in a YAML::ParserException at that place. A ',' where a
// document should start (",", "# c\n  ,x") is never consumed: LoadAll makes empty documents from it until memory runs
// out (found by fuzz_definitions).
std::vector<YAML::Node> load_all_documents(const std::string& text);

// The 1-based line of a yaml-cpp error, or `unknown` when yaml-cpp does not know it.
inline int error_line(const YAML::Exception& e, int unknown = 0) {
  return e.mark.line >= 0 ? e.mark.line + 1 : unknown;
}

}  // namespace wm::yaml
