// manifests/base/policy.yaml, compiled into the binary as the default policy.
#pragma once

#include <string_view>

namespace wm::policy {

std::string_view embedded_policy_text();

}  // namespace wm::policy
