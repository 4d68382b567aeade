// libFuzzer: arbitrary bytes as an AdmissionReview body, through /mutate's and /validate's handler with the built-in
// catalog, under the built-in policy and under every scheduler profile it ships (each in a rule with every limit
// on, mutateOnUpdate and failurePolicy Fail, so that all of the policy's code is reached). Nothing may crash, hang
// or leak.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "policy/embedded_policy.h"
#include "webhook/admission.h"

namespace {

std::vector<wm::policy::AdmissionState> states() {
  wm::yaml::Diagnostics errors;
  auto catalog = std::make_shared<wm::catalog::Catalog>(wm::catalog::Catalog::embedded(errors));
  std::vector<wm::policy::AdmissionState> out{
      {catalog, std::make_shared<wm::policy::Policy>(wm::policy::Policy::builtin())}};
  const std::string text(wm::policy::embedded_policy_text());
  const std::string profiles = text.substr(0, text.find("\nrules:"));
  for (const auto& profile : YAML::Load(text)["schedulerProfiles"]) {
    const std::string rules = "\nrules:\n- name: all\n  profile: " + profile.first.as<std::string>() +
                              "\n  queue: {fromLabel: q, default: research}\n  mutateOnUpdate: true\n"
                              "  failurePolicy: Fail\n  podLabels: {team: a}\n  limits:\n"
                              "    resources: {nvidia.com/gpu: 8, cpu: 100}\n    maxPods: 64\n"
                              "    requireQueue: true\n    allowedSchedulers: [kai-scheduler, volcano]\n"
                              "    requireRequestsWithGPUs: true\n    forbidSchedulerOverride: true\n";
    auto policy = wm::policy::Policy::load(profiles + rules, "fuzz-policy.yaml", errors);
    if (!policy) throw std::runtime_error("fuzz_admission: a profile's policy does not load");
    out.push_back({catalog, std::make_shared<wm::policy::Policy>(std::move(*policy))});
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<wm::policy::AdmissionState> all = states();
  static simdjson::dom::parser parser;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  for (const auto& state : all) {
    wm::webhook::review(wm::webhook::Endpoint::Mutate, body, state, parser);
    wm::webhook::review(wm::webhook::Endpoint::Validate, body, state, parser);
  }
  return 0;
}
