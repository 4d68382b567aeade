#include "base/json/json_pointer.h"

namespace wm::json {

namespace {

bool needs_escape(std::string_view token) {
  for (char c : token)
    if (c == '~' || c == '/') return true;
  return false;
}

void unescape_into(std::string& out, std::string_view raw) {
  out.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '~' && i + 1 < raw.size()) {
      out.push_back(raw[i + 1] == '1' ? '/' : '~');
      ++i;
    } else {
      out.push_back(raw[i]);
    }
  }
}

}  // namespace

void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  if (!needs_escape(token)) {  // the usual case: one append
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
  std::string out;
  out.reserve(pointer.size() + token.size() + 1);
  out.append(pointer);
  append_pointer_token(out, token);
  return out;
}

std::vector<std::string> split_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  PointerTokens walk(pointer);
  while (walk.next()) tokens.emplace_back(walk.token());
  return tokens;
}

bool PointerTokens::next() {
  if (end_ >= pointer_.size()) return false;
  begin_ = end_ + 1;  // past the '/'
  size_t slash = pointer_.find('/', begin_);
  end_ = slash == std::string_view::npos ? pointer_.size() : slash;
  return true;
}

std::string_view PointerTokens::token() {
  std::string_view raw = this->raw();
  if (raw.find('~') == std::string_view::npos) return raw;
  unescape_into(scratch_, raw);
  return scratch_;
}

}  // namespace wm::json
