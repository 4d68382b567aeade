// JSON text to YAML, for `mutate -o yaml`.
#pragma once

#include <string>

namespace wm::cli {

std::string json_to_yaml(const std::string& json);

}  // namespace wm::cli
