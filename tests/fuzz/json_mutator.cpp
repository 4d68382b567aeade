// A structure-aware mutator for the targets whose input is JSON (fuzz_admission): most inputs stay valid JSON, so
// runs get past the parser into the view, the gangs, the patch and the policy (tests/fuzz/json_mutation.h). One
// mutation in four is libFuzzer's own byte-level one, which keeps the parser itself under test.
// WM_FUZZ_BYTES_ONLY=1 turns the structured mutations off, to compare coverage with and without them.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include "tests/fuzz/json_mutation.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  static const bool bytes_only = std::getenv("WM_FUZZ_BYTES_ONLY") != nullptr;
  std::mt19937 random(seed);
  if (bytes_only || random() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  auto mutated = wm::fuzz::mutate_json(std::string_view(reinterpret_cast<const char*>(data), size), random);
  if (!mutated || mutated->size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutated->data(), mutated->size());
  return mutated->size();
}
