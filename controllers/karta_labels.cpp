#include "controllers/karta_labels.h"

#include "base/json/json_read.h"
#include "base/json/json_writer.h"

namespace wm::controllers {

std::optional<std::string> karta_lookup_labels_patch(simdjson::dom::element karta) {
  simdjson::dom::element kind;
  if (karta.at_pointer("/spec/structureDefinition/rootComponent/kind").get(kind) != simdjson::SUCCESS ||
      !kind.is_object())
    return std::nullopt;
  const std::string_view name = json::string_at(karta, "/metadata/name");
  const std::pair<const char*, std::string_view> wanted[] = {{kKartaGroupLabel, json::string_at(kind, "/group")},
                                                             {kKartaVersionLabel, json::string_at(kind, "/version")},
                                                             {kKartaKindLabel, json::string_at(kind, "/kind")}};
  if (name.empty() || wanted[1].second.empty() || wanted[2].second.empty()) return std::nullopt;
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
