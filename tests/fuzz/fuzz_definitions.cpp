// libFuzzer: arbitrary bytes as a definitions file, and as a manifest. Refusals are fine; crashes are not.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mapper/catalog/definition_loader.h"
#include "mapper/catalog/documents.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  wm::catalog::load_definitions(text, "fuzz.yaml");
  wm::yaml::Diagnostics errors;
  wm::catalog::read_documents(text, "fuzz.yaml", errors);
  return 0;
}
