#include "cli/live_filter.h"

#include <algorithm>
#include <cctype>
#include <iostream>

#include "base/json/json_read.h"

namespace wm::cli {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::optional<LiveFilter> LiveFilter::make(const std::string& target, const std::string& selector,
                                           const std::string& phase) {
  LiveFilter f;
  const size_t slash = target.find('/');
  f.kind = lower(target.substr(0, slash));
  if (slash != std::string::npos) f.name = target.substr(slash + 1);
  f.phase = lower(phase);
  auto parsed = live::LabelSelector::parse(selector);
  if (!parsed) {
    std::cerr << "-l: " << parsed.error() << "\n";
    return std::nullopt;
  }
  f.selector = std::move(*parsed);
  return f;
}

bool LiveFilter::wants(const live::LiveObject& root) const {
  if (!kind.empty()) {
    const std::string k = lower(root.kind), group(json::split_api_version(root.api_version).first);
    const std::string dotted = kind.substr(0, kind.find('.'));
    const bool group_matches = kind.find('.') == std::string::npos || kind.substr(kind.find('.') + 1) == group;
    if (!group_matches || (dotted != k && dotted != k + "s" && dotted != k + "es")) return false;
  }
  if (!name.empty() && json::string_at(root.object, "/metadata/name") != name) return false;
  return selector.matches(root.object);
}

bool LiveFilter::wants_phase(const std::string& p) const { return phase.empty() || lower(p) == phase; }

}  // namespace wm::cli
