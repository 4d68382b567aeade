// Writing JSON text (output only; all parsing goes through simdjson): string escaping, numbers, and JsonWriter for
// the request bodies and objects the cluster side builds, so that none is spliced together by hand.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace wm::json {

void append_json_string(std::string& out, std::string_view value);
std::string json_string(std::string_view value);
// Minified JSON text of a parsed element.
std::string element_json(simdjson::dom::element element);
// Shortest text for a double that reads back exactly; integers print without a fraction.
std::string json_number(double value);

// Writes one JSON value, placing the commas and colons: `w.begin_object().field("a", "x").key("b").begin_array()`.
// The caller nests the calls right (every begin has its end, a value in an object follows a key); the text is
// well-formed when it does.
class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  template <class Integer, std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  JsonWriter& value(Integer number) {
    return raw(std::to_string(number));
  }
  JsonWriter& value(bool flag) { return raw(flag ? "true" : "false"); }
  // Text that already is JSON (a parsed element's, a rendered object's).
  JsonWriter& raw(std::string_view json);
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void separate();  // a comma before every value of an array or key of an object but the first
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace wm::json
