// RFC 6901 JSON Pointer helpers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wm::json {

// Appends "/" + token with "~" -> "~0" and "/" -> "~1".
void append_pointer_token(std::string& pointer, std::string_view token);
std::string pointer_child(std::string_view pointer, std::string_view token);
// Splits "/a/b~1c" into {"a", "b/c"}; the empty pointer is the whole document.
std::vector<std::string> split_pointer(std::string_view pointer);

// Walks a pointer's tokens without allocating: `raw()` is the token as written (escaped),
// `token()` the member name it means (unescaped into `scratch` only when it has a "~").
class PointerTokens {
 public:
  explicit PointerTokens(std::string_view pointer) : pointer_(pointer), end_(0) {}
  // Moves to the next token; false at the end.
  bool next();
  std::string_view raw() const { return pointer_.substr(begin_, end_ - begin_); }
  std::string_view token();
  // The pointer up to and including the current token.
  std::string_view prefix() const { return pointer_.substr(0, end_); }
  std::string_view rest() const { return pointer_.substr(end_); }

 private:
  std::string_view pointer_;
  size_t begin_ = 0, end_;
  std::string scratch_;
};

}  // namespace wm::json
