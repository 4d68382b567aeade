// Reads Karta definitions from YAML, checking them as thoroughly as the admission path needs:
// unknown or misspelt fields, wrong types, the structural rules of the Karta format, and every jq
// expression compiled. Nothing that fails here reaches admission time.
#pragma once

#include <string>
#include <vector>

#include "mapper/definition.h"
#include "mapper/diagnostic.h"

namespace wm {

struct DefinitionLoad {
  std::vector<Definition> definitions;
  Diagnostics errors;
};

// `text` may hold several YAML documents; `file` names it in messages.
DefinitionLoad load_definitions(const std::string& text, const std::string& file);

}  // namespace wm
