#include "mapper/json_pointer.h"

namespace wm {

void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  if (token.find_first_of("~/") == std::string_view::npos) {  // the usual case: nothing to escape
    pointer.append(token);
    return;
  }
  for (char c : token) {
    if (c == '~')
      pointer += "~0";
    else if (c == '/')
      pointer += "~1";
    else
      pointer.push_back(c);
  }
}

std::string pointer_child(std::string_view pointer, std::string_view token) {
  std::string out(pointer);
  append_pointer_token(out, token);
  return out;
}

std::vector<std::string> split_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  size_t pos = 1;  // skip the leading '/'
  while (true) {
    size_t next = pointer.find('/', pos);
    std::string_view raw = pointer.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    if (raw.find('~') == std::string_view::npos) {
      tokens.emplace_back(raw);
      if (next == std::string_view::npos) break;
      pos = next + 1;
      continue;
    }
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        token.push_back(raw[i + 1] == '1' ? '/' : '~');
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    tokens.push_back(std::move(token));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return tokens;
}

}  // namespace wm
