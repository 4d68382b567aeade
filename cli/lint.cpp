#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "mapper/catalog.h"
#include "mapper/definition_loader.h"

namespace wm::cli {

int lint(const Args& args) {
  if (args.empty()) {
    std::cerr << "usage: workload-map lint DIR|FILE...\n";
    return kUsage;
  }
  Diagnostics errors;
  size_t definitions = 0;
  for (const auto& target : args) {
    if (std::filesystem::is_directory(target)) {
      Catalog catalog = Catalog::from_directory(target, errors);
      definitions += catalog.size();
      continue;
    }
    std::ifstream in(target);
    if (!in) {
      errors.push_back({target, 0, "", "cannot open the file"});
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    DefinitionLoad load = load_definitions(text.str(), target);
    definitions += load.definitions.size();
    errors.insert(errors.end(), load.errors.begin(), load.errors.end());
  }
  for (const auto& e : errors) std::cout << e.str() << "\n";
  std::cout << definitions << " definition(s) valid, " << errors.size() << " problem(s)\n";
  return errors.empty() ? kOk : kInvalid;
}

}  // namespace wm::cli
