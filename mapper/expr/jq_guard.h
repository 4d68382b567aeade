// Definitions run on every admission, so their jq must terminate. jq 1.6 has no step limit, so the
// constructs that can loop forever (recursion, repeat, while, until, range, infinite, recurse with a
// generator) and those that reach outside the object (input, env, halt) are refused at load time.
#pragma once

#include <optional>
#include <string>

namespace wm::expr {

// The first refused construct in `source`, or nothing.
std::optional<std::string> unbounded_jq_construct(const std::string& source);

}  // namespace wm::expr
