// A label selector as kubectl's -l takes it: requirements joined by commas, each `k=v`, `k==v`, `k!=v`, `k`, `!k`,
// `k in (a,b)` or `k notin (a,b)`. Matched here, over the workloads only: listing with it would leave out their
// children and pods, which do not carry their workload's labels.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace wm::live {

class LabelSelector {
 public:
  // An error names the requirement that cannot be read.
  static Result<LabelSelector> parse(std::string_view text);
  // Whether the object's metadata.labels meet every requirement (an empty selector matches everything).
  bool matches(simdjson::dom::element object) const;

 private:
  struct Requirement {
    enum class Op { In, NotIn, Exists, DoesNotExist } op;
    std::string key;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace wm::live
