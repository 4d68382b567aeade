#include "tests/bench/test_manifests.h"

#include <filesystem>

#include "mapper/catalog/documents.h"
#include "tests/support/test_support.h"

namespace wm::bench {

std::vector<std::string> test_manifest_objects() {
  namespace fs = std::filesystem;
  std::vector<std::string> objects;
  const fs::path roots[] = {WM_CORPUS_DIR, test::source_path("tests/fixtures/upstream"),
                            test::source_path("tests/fixtures/upstream-recorded")};
  for (const auto& root : roots)
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".yaml") continue;
      yaml::Diagnostics errors;
      for (auto& document : catalog::read_document_file(entry.path().string(), errors))
        objects.push_back(document.json);
    }
  return objects;
}

}  // namespace wm::bench
