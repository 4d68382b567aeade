#include "controllers/karta_labels.h"

#include <vector>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"

namespace wm::controllers {

std::optional<std::string> karta_lookup_labels_patch(simdjson::dom::element karta) {
  simdjson::dom::element kind;
  if (karta.at_pointer("/spec/structureDefinition/rootComponent/kind").get(kind) != simdjson::SUCCESS ||
      !kind.is_object())
    return std::nullopt;
  const std::string_view name = json::string_at(karta, "/metadata/name");
  const std::string_view group = json::string_at(kind, "/group"), version = json::string_at(kind, "/version"),
                         kind_name = json::string_at(kind, "/kind");
  if (name.empty() || version.empty() || kind_name.empty()) return std::nullopt;
  std::vector<std::pair<const char*, std::string_view>> wanted;
  for (const KartaLookupScheme& scheme : kKartaLookupSchemes) {
    wanted.emplace_back(scheme.group, group);
    wanted.emplace_back(scheme.version, version);
    wanted.emplace_back(scheme.kind, kind_name);
  }
  simdjson::dom::object labels;
  const bool has_labels = karta.at_pointer("/metadata/labels").get_object().get(labels) == simdjson::SUCCESS;
  bool same = has_labels;
  for (const auto& [key, value] : wanted) {
    std::string_view shown;
    same = same && labels.at_key(key).get_string().get(shown) == simdjson::SUCCESS && shown == value;
  }
  if (same) return std::nullopt;
  json::JsonWriter body;
  body.begin_object().field("apiVersion", "run.ai/v1alpha1").field("kind", "Karta");
  body.key("metadata").begin_object().field("name", name).key("labels").begin_object();
  for (const auto& [key, value] : wanted) body.field(key, value);
  body.end_object().end_object().end_object();
  return body.take();
}

}  // namespace wm::controllers
