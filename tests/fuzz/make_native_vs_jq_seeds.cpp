// Seeds for fuzz_native_vs_jq: every expression of the built-in catalog that the native evaluator takes, each paired
// with one of the JSON objects given (in turn), as "expression\nobject" files in OUT_DIR.
//   make_native_vs_jq_seeds OUT_DIR OBJECT.json...
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "mapper/catalog/catalog.h"
#include "mapper/catalog/definition.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: make_native_vs_jq_seeds OUT_DIR OBJECT.json...\n";
    return 2;
  }
  std::vector<std::string> objects;
  for (int i = 2; i < argc; ++i) {
    std::stringstream text;
    text << std::ifstream(argv[i]).rdbuf();
    if (!text.str().empty()) objects.push_back(text.str());
  }
  if (objects.empty()) return 1;
  wm::yaml::Diagnostics errors;
  wm::catalog::Catalog catalog = wm::catalog::Catalog::embedded(errors);
  size_t n = 0;
  for (const auto& definition : catalog.definitions())
    wm::catalog::for_each_object_path(*definition, [&](const std::string&, const wm::catalog::Path& path) {
      if (!path->is_native()) return;
      std::ofstream(std::string(argv[1]) + "/seed-" + std::to_string(n)) << path->source() << "\n"
                                                                         << objects[n % objects.size()];
      ++n;
    });
  std::cout << n << " seeds\n";
  return 0;
}
