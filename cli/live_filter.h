// Which workloads `get` and `describe` name: KIND[/NAME] as kubectl takes it (the kind, its lowercase, plural or
// kind.group: JobSet, jobsets, jobset.jobset.x-k8s.io), a label selector and a phase.
#pragma once

#include <optional>
#include <string>

#include "live/label_selector.h"
#include "live/snapshot.h"

namespace wm::cli {

struct LiveFilter {
  std::string kind, name, phase;
  live::LabelSelector selector;
  // From "KIND[/NAME]" (empty: every kind); prints the problem and returns nothing when `selector` cannot be read.
  static std::optional<LiveFilter> make(const std::string& target, const std::string& selector,
                                        const std::string& phase);
  bool wants(const live::LiveObject& root) const;  // kind, name and selector
  bool wants_phase(const std::string& phase) const;
};

}  // namespace wm::cli
