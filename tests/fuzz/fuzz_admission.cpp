// libFuzzer: arbitrary bytes as an AdmissionReview body, through /mutate's and /validate's handler
// with the built-in catalog and policy. Nothing may crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "webhook/admission.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const wm::webhook::AdmissionState state = [] {
    wm::Diagnostics errors;
    return wm::webhook::AdmissionState{std::make_shared<wm::Catalog>(wm::Catalog::embedded(errors)),
                                       std::make_shared<wm::webhook::Policy>(wm::webhook::Policy::builtin())};
  }();
  static simdjson::dom::parser parser;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  wm::webhook::review(wm::webhook::Endpoint::Mutate, body, state, parser);
  wm::webhook::review(wm::webhook::Endpoint::Validate, body, state, parser);
  return 0;
}
