#include "webhook/pod_group_name.h"

#include "base/json/json_patch.h"
#include "base/json/json_pointer.h"
#include "base/json/json_read.h"

namespace wm::webhook {

std::string_view pod_group_annotation(simdjson::dom::element pod) {
  static const std::string at = json::pointer_child("/metadata/annotations", kPodGroupAnnotation);
  return json::string_at(pod, at);
}

std::optional<std::string> pod_group_name_patch(simdjson::dom::element pod, std::string_view name) {
  simdjson::dom::element group;
  if (name.empty() || pod.at_pointer("/spec/schedulingGroup").get(group) == simdjson::SUCCESS) return std::nullopt;
  json::JsonPatchBuilder patch(pod);
  if (!patch.set_string("/spec/schedulingGroup/podGroupName", name) || patch.empty()) return std::nullopt;
  return patch.str();
}

std::string joined_patches(const std::string& first, const std::string& second) {
  if (first.size() <= 2) return second;  // "[]" or empty
  if (second.size() <= 2) return first;
  return first.substr(0, first.size() - 1) + "," + second.substr(1);
}

}  // namespace wm::webhook
