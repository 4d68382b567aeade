#include "mapper/view/status.h"

#include <strings.h>

namespace wm::view {

namespace {

std::string field_string(simdjson::dom::element object, const std::string& key) {
  std::string_view s;
  if (object.is_object() && object.at_key(key).get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return {};
}

bool expression_matches(const catalog::StatusMatcher& m, json::ObjectDocument& doc,
                        std::vector<std::string>& problems) {
  json::EvalResult r = m.by_expression->evaluate(doc, false);
  if (!r.ok()) problems.push_back("status expression " + m.by_expression->source() + ": " + r.error);
  if (r.values.empty()) return false;
  const json::Value& v = r.values.front();
  std::string_view s;
  if (!v.computed && v.element.get_string().get(s) == simdjson::SUCCESS) return s == m.expected_result;
  return v.json() == m.expected_result;
}

}  // namespace

std::vector<std::string> evaluate_status(const catalog::StatusDefinition& status, json::ObjectDocument& doc,
                                         std::vector<std::string>& problems) {
  std::optional<std::string> phase;
  if (status.phase) {
    json::EvalResult r = status.phase->evaluate(doc, false);
    if (!r.values.empty()) phase = r.values.front().as_scalar_string();
  }
  std::vector<simdjson::dom::element> conditions;
  if (status.conditions) {
    json::EvalResult r = status.conditions->evaluate(doc, false);
    for (const json::Value& v : r.values) {
      if (v.computed) continue;
      simdjson::dom::array array;
      if (v.element.get_array().get(array) == simdjson::SUCCESS)
        for (auto c : array) conditions.push_back(c);
      else if (v.element.is_object())
        conditions.push_back(v.element);
    }
  }
  auto condition_holds = [&](const catalog::ConditionMatch& want) {
    for (auto c : conditions)
      if (field_string(c, status.type_field) == want.type && field_string(c, status.status_field) == want.status &&
          (want.reason.empty() || field_string(c, status.reason_field) == want.reason))
        return true;
    return false;
  };

  std::vector<std::string> states;
  for (const auto& [state, matchers] : status.mappings) {
    for (const auto& m : matchers) {
      // Phase enums differ in case between operators (KubeRay "ready", Milvus "Healthy").
      bool holds = !m.by_phase || (phase && strcasecmp(phase->c_str(), m.by_phase->c_str()) == 0);
      for (const auto& c : m.by_conditions) holds = holds && condition_holds(c);
      if (holds && m.by_expression) holds = expression_matches(m, doc, problems);
      if (holds) {
        states.push_back(state);
        break;
      }
    }
  }
  if (states.empty()) states.push_back("Undefined");
  return states;
}

}  // namespace wm::view
