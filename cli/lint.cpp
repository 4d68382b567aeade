#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "mapper/catalog/catalog.h"
#include "mapper/catalog/definition_loader.h"

namespace wm::cli {

namespace {

int lint(const std::vector<std::string>& args) {
  yaml::Diagnostics errors;
  size_t definitions = 0;
  for (const auto& target : args) {
    if (std::filesystem::is_directory(target)) {
      catalog::Catalog catalog = catalog::Catalog::from_directory(target, errors);
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
    catalog::DefinitionLoad load = catalog::load_definitions(text.str(), target);
    definitions += load.definitions.size();
    errors.insert(errors.end(), load.errors.begin(), load.errors.end());
  }
  for (const auto& e : errors) std::cout << e.str() << "\n";
  std::cout << definitions << " definition(s) valid, " << errors.size() << " problem(s)\n";
  return errors.empty() ? kOk : kInvalid;
}

}  // namespace

void add_lint(CLI::App& app, int& status) {
  auto targets = std::make_shared<std::vector<std::string>>();
  CLI::App* command = app.add_subcommand("lint", "check definitions; lists every problem as file:line: field: message");
  command->add_option("DIR|FILE", *targets, "definition files, or directories of them")->required();
  command->callback([targets, &status] { status = lint(*targets); });
}

}  // namespace wm::cli
