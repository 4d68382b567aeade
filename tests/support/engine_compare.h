// How the native evaluator and libjq are compared (the corpus test and the differential fuzzer): the values in
// order, each with its location, and whether the stream ended in an error. jq's path() is all-or-nothing: when any
// output is computed, none has a location, where the native engine still locates the others; then only the values
// are compared.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"
#include "mapper/expr/path_expression.h"

namespace wm::test {

inline bool all_unlocated(const json::EvalResult& r) {
  for (const auto& v : r.values)
    if (v.has_pointer) return false;
  return true;
}

inline std::string comparable(const json::EvalResult& r, bool with_pointers) {
  std::string out;
  for (const auto& v : r.values) {
    out += v.json();
    if (with_pointers) out += "@" + (v.has_pointer ? v.pointer : std::string("-"));
    out += "\n";
  }
  return out + (r.ok() ? "" : "<error>");
}

// The two results as the comparison sees them, for `with_pointers` evaluations of both engines.
inline std::pair<std::string, std::string> comparable_pair(const json::EvalResult& native, const json::EvalResult& jq,
                                                           bool with_pointers) {
  const bool pointers = with_pointers && !all_unlocated(jq);
  return {comparable(native, pointers), comparable(jq, pointers)};
}

// Stopped by its budget (steps natively, time in jq), or refused natively where jq's answer costs what nothing bounds
// (expr::kRefusedPrefix): the engines' budgets differ, so such results are not compared.
inline bool stopped(const json::EvalResult& r) {
  return r.error.rfind("stopped:", 0) == 0 || r.error.rfind(expr::kRefusedPrefix, 0) == 0;
}

// A differential case as the fuzzer reads it: a jq expression, a newline, a JSON document.
struct DifferentialCase {
  std::string expression;
  std::string_view document;
};
inline std::optional<DifferentialCase> split_case(std::string_view input) {
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos || newline > 512) return std::nullopt;
  return DifferentialCase{std::string(input.substr(0, newline)), input.substr(newline + 1)};
}

// Whether an object in `e` has a key twice. jq (like the API server's decoder) keeps the last, simdjson's lookup
// finds the first. The API server decodes and re-encodes every object it sends a webhook, so admission never sees
// one; such documents are outside what the two engines are compared on.
inline bool has_duplicate_keys(simdjson::dom::element e) {
  // simdjson arrays and objects are views: named, since a range-for over a temporary would dangle.
  if (e.is_array()) {
    const simdjson::dom::array items = e.get_array().value_unsafe();
    for (simdjson::dom::element item : items)
      if (has_duplicate_keys(item)) return true;
    return false;
  }
  if (!e.is_object()) return false;
  std::vector<std::string_view> keys;
  const simdjson::dom::object fields = e.get_object().value_unsafe();
  for (auto [key, value] : fields) {
    keys.push_back(key);
    if (has_duplicate_keys(value)) return true;
  }
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

// What the two engines disagree on for `path` over `root`, with and without locations; "" when they agree (or an
// engine stopped for its budget, or the native engine deferred to jq).
inline std::string disagreement(const expr::PathExpression& path, simdjson::dom::element root) {
  for (bool pointers : {false, true}) {
    json::ObjectDocument doc(root);
    auto native = path.evaluate_native(doc, pointers);
    if (!native) continue;
    json::EvalResult jq = path.evaluate_jq(doc, pointers);
    if (stopped(*native) || stopped(jq)) continue;
    // jq 1.6 catches an error at a try wherever it is raised, so a try can swallow path()'s own "Invalid path
    // expression" for a computed output ("(.a)? - 1"): no output, no error, where the values exist. The native
    // engine gives the values, unlocated, as jq does outside a try; such results are not compared.
    if (pointers && jq.values.empty() && jq.ok() && !path.evaluate_jq(doc, false).values.empty()) continue;
    const auto [native_text, jq_text] = comparable_pair(*native, jq, pointers);
    if (native_text != jq_text)
      return path.source() + (pointers ? " (with locations)" : "") + "\nnative:\n" + native_text + "\njq:\n" + jq_text;
  }
  return "";
}

}  // namespace wm::test
