// Reads Karta definitions from YAML, checking them as thoroughly as the admission path needs:
// unknown or misspelt fields, wrong types, the structural rules of the Karta format, and every jq
// expression compiled. Nothing that fails here reaches admission time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/yaml/diagnostic.h"
#include "mapper/catalog/definition.h"

namespace wm::catalog {

struct DefinitionLoad {
  std::vector<Definition> definitions;
  yaml::Diagnostics errors;
};

// Loads any number of files, then compiles all their jq expressions at once (see JqLibrary).
class DefinitionLoader {
 public:
  DefinitionLoader();
  ~DefinitionLoader();
  // `text` may hold several YAML documents; `file` names it in messages.
  void load(const std::string& text, const std::string& file);
  // Definitions whose every expression compiles, and all problems found.
  DefinitionLoad finish();

  struct PendingCheck {
    size_t expression;       // index in the library
    yaml::Diagnostic where;  // message filled in if it fails
    size_t document;         // which loaded document it belongs to
  };

 private:
  std::shared_ptr<expr::JqLibrary> library_;
  std::vector<std::pair<size_t, Definition>> definitions_;  // with their document number
  std::vector<PendingCheck> checks_;
  yaml::Diagnostics errors_;
  size_t documents_ = 0;
};

// One file on its own.
DefinitionLoad load_definitions(const std::string& text, const std::string& file);

}  // namespace wm::catalog
