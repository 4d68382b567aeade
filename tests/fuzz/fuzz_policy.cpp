// libFuzzer: arbitrary bytes as the policy file (--policy, the ConfigMap). Refusals are fine; crashes are not.
// A policy that loads is asked for a rule, as admission does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "policy/policy.h"
#include "policy/profile_choice.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  wm::yaml::Diagnostics errors;
  if (auto policy = wm::policy::Policy::load(text, "fuzz-policy.yaml", errors)) {
    if (const auto* rule = policy->match("team-a", "jobset.x-k8s.io", "JobSet"); rule && rule->profile)
      wm::policy::edits_for(*rule->profile, "", "Pod");
  }
  return 0;
}
