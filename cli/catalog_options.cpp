#include "cli/catalog_options.h"

#include <iostream>

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

}  // namespace wm::cli
