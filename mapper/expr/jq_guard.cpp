#include "mapper/expr/jq_guard.h"

#include <cctype>

namespace wm::expr {

std::optional<std::string> unbounded_jq_construct(const std::string& s) {
  static const char* const refused[] = {
      "def",     "repeat", "while",          "until",        "range",          "infinite", "input",
      "inputs",  "env",    "halt",           "halt_error",   "debug",          "stderr",   "import",
      "include", "limit",  "input_filename", "recurse_down", "get_search_list"};
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {  // skip string literals (and their escapes)
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
      size_t start = i++;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      std::string word = s.substr(start, i - start);
      bool field = start > 0 && s[start - 1] == '.';  // .range is a field, not the builtin
      if (word == "$ENV" || word == "$__loc__") return word;
      if (field || word[0] == '$') continue;
      // `recurse` and `..` without arguments walk the (finite) object: only recurse(f) may not end.
      if (word == "recurse") {
        size_t j = i;
        while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j >= s.size() || s[j] != '(') continue;
        return "recurse(f)";
      }
      for (const char* r : refused)
        if (word == r) return word;
      continue;
    }
    ++i;
  }
  return std::nullopt;
}

}  // namespace wm::expr
