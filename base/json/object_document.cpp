#include "base/json/object_document.h"

#include <array>

#include "base/json/json_writer.h"
#include "base/json/parser_capacity.h"

namespace wm::json {

namespace {
simdjson::dom::parser& scratch_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}
}  // namespace

ObjectDocument::ObjectDocument(simdjson::dom::element root) : root_(root) {}
ObjectDocument::~ObjectDocument() = default;

simdjson::dom::element ObjectDocument::adopt(const std::string& json) {
  auto& doc = *adopted_.emplace_back(std::make_unique<simdjson::dom::document>());
  simdjson::dom::element element;
  const bool parsed =
      allow_max_depth(scratch_parser(), json.size()) == simdjson::SUCCESS &&
      scratch_parser().parse_into_document(doc, json.data(), json.size()).get(element) == simdjson::SUCCESS;
  shed_capacity(scratch_parser());  // the document keeps its own tape and strings
  return parsed ? element : null_element();
}

simdjson::dom::element ObjectDocument::boolean_element(bool value) {
  static const auto holders = [] {
    std::array<std::unique_ptr<simdjson::dom::document>, 2> docs;
    simdjson::dom::parser parser;
    for (int i = 0; i < 2; ++i) {
      docs[i] = std::make_unique<simdjson::dom::document>();
      (void)parser.parse_into_document(*docs[i], i ? "true" : "false", i ? 4 : 5);
    }
    return docs;
  }();
  return holders[value ? 1 : 0]->root();
}

simdjson::dom::element ObjectDocument::null_element() {
  static const auto holder = [] {
    auto doc = std::make_unique<simdjson::dom::document>();
    simdjson::dom::parser parser;
    (void)parser.parse_into_document(*doc, "null", 4);
    return doc;
  }();
  return holder->root();
}

}  // namespace wm::json
