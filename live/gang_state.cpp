#include "live/gang_state.h"

#include <algorithm>

#include "base/json/json_read.h"

namespace wm::live {

namespace {

// The first of `pointers` that gives a number, summed over its `*`.
std::optional<long long> minimum(simdjson::dom::element object, const std::vector<std::string>& pointers) {
  for (const auto& pointer : pointers) {
    std::optional<long long> sum;
    json::for_each_at(object, pointer, [&](simdjson::dom::element e) {
      int64_t n = 0;
      if (e.get_int64().get(n) == simdjson::SUCCESS) sum = sum.value_or(0) + n;
    });
    if (sum) return sum;
  }
  return std::nullopt;
}

void add_once(std::vector<std::string>& list, std::string_view text) {
  if (!text.empty() && std::find(list.begin(), list.end(), text) == list.end()) list.emplace_back(text);
}

// The first condition that says the gang waits: its reason (else type) and its words.
void read_waiting(const policy::GangStatusSource::Waiting& w, simdjson::dom::element object, GangState& out) {
  json::for_each_at(object, w.conditions + "/*", [&](simdjson::dom::element c) {
    if (json::string_member(c, "type") != w.type) return;
    if (!w.status.empty() && json::string_member(c, "status") != w.status) return;
    if (!out.waiting) {
      std::string_view reason = json::string_member(c, "reason");
      out.state = std::string(reason.empty() ? json::string_member(c, "type") : reason);
      out.waiting = true;
    }
    for (const auto& m : w.messages)
      json::for_each_at(c, m, [&](simdjson::dom::element text) {
        std::string_view s;
        if (text.get_string().get(s) == simdjson::SUCCESS) add_once(out.reasons, s);
      });
  });
}

}  // namespace

GangState gang_state(const policy::GangStatusSource& source, const LiveObject& object) {
  GangState out;
  out.api_version = object.api_version;
  out.kind = object.kind;
  out.name = std::string(json::string_at(object.object, "/metadata/name"));
  out.min_member = minimum(object.object, source.min_member);
  for (const auto& w : source.waiting) read_waiting(w, object.object, out);
  if (!out.waiting && !source.phase.empty()) out.state = std::string(json::string_at(object.object, source.phase));
  return out;
}

}  // namespace wm::live
