// JSON text and JSON Pointer helpers: the fast paths must agree with the plain definitions.
#include <catch2/catch.hpp>
#include <string>

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"

using namespace wm;

namespace {

// The escaping, one character at a time, as RFC 8259 says.
std::string reference_json_string(const std::string& s) {
  static constexpr char hex[] = "0123456789abcdef";
  static const std::pair<char, const char*> named[] = {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"},
                                                       {'\t', "\\t"}, {'\b', "\\b"},  {'\f', "\\f"}};
  std::string out = "\"";
  for (unsigned char c : s) {
    const char* escape = nullptr;
    for (const auto& [from, to] : named)
      if (c == static_cast<unsigned char>(from)) escape = to;
    if (escape)
      out += escape;
    else if (c < 0x20)
      out += std::string("\\u00") + hex[c >> 4] + hex[c & 0xf];
    else
      out.push_back(static_cast<char>(c));
  }
  return out + "\"";
}

}  // namespace

TEST_CASE("JSON strings: a special character is escaped wherever it falls in a 16-byte block") {
  for (char special : {'"', '\\', '\n', '\x01', '\x1f'})
    for (size_t length = 1; length <= 40; ++length)
      for (size_t at = 0; at < length; ++at) {
        std::string s(length, 'a');
        s[at] = special;
        INFO("length " << length << ", at " << at << ", char " << static_cast<int>(special));
        CHECK(json::json_string(s) == reference_json_string(s));
      }
}

TEST_CASE("JSON strings: text without specials (UTF-8, DEL, spaces) is copied as it is") {
  for (const std::string& s : {std::string(), std::string("kai.scheduler/queue"), std::string(100, 'x'),
                               std::string("caf\xc3\xa9 \x7f ~/ spaces and\xe2\x80\x94"
                                           "dashes in a long value")})
    CHECK(json::json_string(s) == "\"" + s + "\"");
}

TEST_CASE("JSON Pointer: tokens are escaped, split back and walked without loss") {
  const std::string tokens[] = {"spec", "a/b", "c~d", "", "~1", "0"};
  std::string pointer;
  for (const auto& t : tokens) json::append_pointer_token(pointer, t);
  CHECK(pointer == "/spec/a~1b/c~0d//~01/0");
  CHECK(json::split_pointer(pointer) == std::vector<std::string>(std::begin(tokens), std::end(tokens)));

  json::PointerTokens walk(pointer);
  REQUIRE(walk.next());
  CHECK(walk.token() == "spec");
  CHECK(walk.prefix() == "/spec");
  REQUIRE(walk.next());
  CHECK(walk.raw() == "a~1b");
  CHECK(walk.token() == "a/b");
  CHECK(walk.rest() == "/c~0d//~01/0");
  CHECK(json::split_pointer("").empty());
  CHECK(json::split_pointer("/") == std::vector<std::string>{""});
}

TEST_CASE("JsonWriter: commas and colons where they belong, strings escaped, nesting kept") {
  wm::json::JsonWriter w;
  w.begin_object().field("name", "a\"b").field("count", 3).field("ok", true);
  w.key("items").begin_array().value("x").begin_object().end_object().raw("[1,2]").end_array();
  w.key("empty").begin_array().end_array().end_object();
  CHECK(w.str() == R"({"name":"a\"b","count":3,"ok":true,"items":["x",{},[1,2]],"empty":[]})");
  simdjson::dom::parser parser;
  CHECK(parser.parse(w.str()).error() == simdjson::SUCCESS);
}
