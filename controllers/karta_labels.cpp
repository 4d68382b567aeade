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
  std::string labels_json;
  for (const auto& [key, value] : wanted)
    labels_json += (labels_json.empty() ? "" : ",") + json::json_string(key) + ":" + json::json_string(value);
  return R"({"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":)" + json::json_string(name) +
         R"(,"labels":{)" + labels_json + "}}}";
}

}  // namespace wm::controllers
