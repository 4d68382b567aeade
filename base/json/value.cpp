#include "base/json/value.h"

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"

namespace wm::json {

bool Value::is_null() const { return !computed && element.is_null(); }

bool Value::truthy() const {
  if (computed) return true;
  if (element.is_null()) return false;
  bool b;
  if (element.get_bool().get(b) == simdjson::SUCCESS) return b;
  return true;
}

std::optional<double> Value::as_number() const {
  if (computed) return computed_string ? std::nullopt : std::optional<double>(number);
  double d;
  if (element.is_number() && element.get_double().get(d) == simdjson::SUCCESS) return d;
  return std::nullopt;
}

std::optional<std::string> Value::as_scalar_string() const {
  if (computed) return computed_string ? text : json_number(number);
  std::string_view s;
  if (element.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  if (element.is_number()) return json_number(*as_number());
  bool b;
  if (element.get_bool().get(b) == simdjson::SUCCESS) return b ? "true" : "false";
  return std::nullopt;
}

std::string Value::json() const {
  if (computed) return computed_string ? json_string(text) : json_number(number);
  if (element.is_number()) return json_number(*as_number());  // one spelling for 2, 2.0 and 2e0
  return element_json(element);
}

namespace {
void append_location(std::string& out, const Value& v) {
  if (!v.parent) {
    out += v.pointer;
    return;
  }
  append_location(out, *v.parent);
  if (v.step_is_index) {
    out.push_back('/');
    out += std::to_string(v.step_index);
  } else {
    append_pointer_token(out, v.step_key);
  }
}
}  // namespace

void Value::resolve_pointer() {
  if (!parent) return;
  std::string out;
  out.reserve(64);
  if (has_pointer) append_location(out, *this);
  pointer = std::move(out);
  parent = nullptr;
}

}  // namespace wm::json
