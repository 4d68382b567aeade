#include "kube/trim.h"

#include "base/json/json_writer.h"

namespace wm::kube {

namespace {

// `object` as JSON with the member `drop` left out, and `edit` applied to the member `inside` (either "": none).
template <class Edit>
std::string object_without(simdjson::dom::object object, std::string_view drop, std::string_view inside, Edit edit) {
  std::string out = "{";
  for (auto [key, value] : object) {
    if (!drop.empty() && key == drop) continue;
    if (out.size() > 1) out += ',';
    json::append_json_string(out, key);
    out += ':';
    out += !inside.empty() && key == inside ? edit(value) : json::element_json(value);
  }
  return out + "}";
}

}  // namespace

std::string without_managed_fields(simdjson::dom::element object) {
  simdjson::dom::object top;
  if (object.get_object().get(top) != simdjson::SUCCESS) return json::element_json(object);
  return object_without(top, "", "metadata", [](simdjson::dom::element metadata) {
    simdjson::dom::object m;
    if (metadata.get_object().get(m) != simdjson::SUCCESS) return json::element_json(metadata);
    return object_without(m, "managedFields", "", [](simdjson::dom::element e) { return json::element_json(e); });
  });
}

}  // namespace wm::kube
