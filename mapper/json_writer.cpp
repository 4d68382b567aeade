#include "mapper/json_writer.h"

#include <cmath>
#include <cstdio>

namespace wm {

void append_json_string(std::string& out, std::string_view value) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  // The usual case, names and label values: nothing to escape, one append.
  bool plain = true;
  for (unsigned char c : value) plain = plain && c >= 0x20 && c != '"' && c != '\\';
  if (plain) {
    out.append(value);
    out.push_back('"');
    return;
  }
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(hex[c >> 4]);
          out.push_back(hex[c & 0xf]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

std::string json_string(std::string_view value) {
  std::string out;
  out.reserve(value.size() + 2);
  append_json_string(out, value);
  return out;
}

std::string element_json(simdjson::dom::element element) { return simdjson::minify(element); }

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

}  // namespace wm
