#include "cli/catalog_options.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace wm::cli {

void add_definitions_option(CLI::App& command, std::vector<std::string>& dirs) {
  command
      .add_option("--definitions", dirs,
                  "add or override definitions (repeatable); the built-in catalog is always loaded")
      ->type_name("DIR")
      ->expected(1)  // one directory per --definitions, so that a FILE after it stays a FILE
      ->take_all();
}

std::optional<Catalog> load_catalog(const std::vector<std::string>& dirs) {
  Diagnostics errors;
  Catalog catalog = Catalog::embedded(errors);
  for (const auto& dir : dirs) {
    Catalog extra = Catalog::from_directory(dir, errors);
    catalog.merge(std::move(extra));
  }
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty()) return std::nullopt;
  return catalog;
}

std::optional<webhook::Policy> load_policy(const std::string& file) {
  if (file.empty()) return webhook::Policy::builtin();
  std::ifstream in(file);
  if (!in) {
    std::cerr << file << ": cannot open the policy file\n";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  Diagnostics problems;
  auto policy = webhook::Policy::load(text.str(), file, problems);
  for (const auto& p : problems) std::cerr << p.str() << "\n";
  return policy;
}

}  // namespace wm::cli
