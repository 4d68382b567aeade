#include "controllers/dropped_fields.h"

#include <simdjson.h>

#include "base/json/json_pointer.h"

namespace wm::controllers {

namespace {

void compare(simdjson::dom::object sent, simdjson::dom::object stored, const std::string& at,
             std::vector<std::string>& out) {
  for (auto [key, value] : sent) {
    const std::string pointer = json::pointer_child(at, key);
    simdjson::dom::element kept;
    if (stored.at_key(key).get(kept) != simdjson::SUCCESS) {
      out.push_back(pointer);
      continue;
    }
    simdjson::dom::object sent_member, kept_member;
    if (value.get_object().get(sent_member) == simdjson::SUCCESS &&
        kept.get_object().get(kept_member) == simdjson::SUCCESS)
      compare(sent_member, kept_member, pointer, out);
  }
}

}  // namespace

std::vector<std::string> dropped_fields(std::string_view sent, std::string_view stored) {
  std::vector<std::string> out;
  simdjson::dom::parser sent_parser, stored_parser;
  simdjson::dom::object sent_spec, stored_spec;
  simdjson::dom::element sent_root, stored_root;
  if (sent_parser.parse(sent.data(), sent.size()).get(sent_root) != simdjson::SUCCESS ||
      stored_parser.parse(stored.data(), stored.size()).get(stored_root) != simdjson::SUCCESS ||
      sent_root["spec"].get_object().get(sent_spec) != simdjson::SUCCESS ||
      stored_root["spec"].get_object().get(stored_spec) != simdjson::SUCCESS)
    return out;
  compare(sent_spec, stored_spec, "/spec", out);
  return out;
}

}  // namespace wm::controllers
