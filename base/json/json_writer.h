// Small helpers to write JSON text (output only; all parsing goes through simdjson).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace wm::json {

void append_json_string(std::string& out, std::string_view value);
std::string json_string(std::string_view value);
// Minified JSON text of a parsed element.
std::string element_json(simdjson::dom::element element);
// Shortest text for a double that reads back exactly; integers print without a fraction.
std::string json_number(double value);

}  // namespace wm::json
