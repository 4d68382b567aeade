#include "cli/catalog_options.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace wm::cli {

bool take_definition_dirs(std::vector<std::string>& args, std::vector<std::string>& dirs) {
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--definitions") {
      if (i + 1 >= args.size()) {
        std::cerr << "--definitions needs a directory\n";
        return false;
      }
      dirs.push_back(args[i + 1]);
      args.erase(args.begin() + i, args.begin() + i + 2);
    } else if (args[i].rfind("--definitions=", 0) == 0) {
      dirs.push_back(args[i].substr(14));
      args.erase(args.begin() + i);
    } else {
      ++i;
    }
  }
  return true;
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
