#include "mapper/view/pod_edits.h"

namespace wm {

namespace {

void note(std::vector<std::string>& warnings, const InstanceView& instance, const char* what, const std::string& why) {
  warnings.push_back("component " + instance.component + " instance " + instance.id + ": " + what + ": " + why);
}

}  // namespace

void apply_pod_edits(JsonPatchBuilder& patch, const InstanceView& instance, const PodEdits& edits,
                     std::vector<std::string>& warnings) {
  if (instance.shape == PodShape::Logical) return;
  const PodFieldLocations& at = instance.fields;
  if (!at.scheduler_name && !at.priority_class_name && !at.labels && !at.annotations) {
    // A kind whose API has no place for them (NIMCache), or pods from an operator's default template (a RayJob's
    // submitter): one warning, not one per field.
    if (edits.scheduler_name || edits.priority_class_name || !edits.labels.empty() || !edits.annotations.empty())
      note(warnings, instance, "pods not edited",
           "the definition locates no pod field (the API has none, or the pods come from the operator's defaults)");
    return;
  }
  auto set = [&](const std::optional<std::string>& where, const std::optional<std::string>& value, const char* what) {
    if (!value) return;
    if (!where) return note(warnings, instance, what, "the definition does not locate this field");
    if (!patch.set_string(*where, *value)) note(warnings, instance, what, patch.error());
  };
  auto merge = [&](const std::optional<std::string>& where, const StringPairs& entries, const char* what) {
    if (entries.empty()) return;
    if (!where) return note(warnings, instance, what, "the definition does not locate this field");
    if (!patch.merge_map(*where, entries)) note(warnings, instance, what, patch.error());
  };
  set(at.scheduler_name, edits.scheduler_name, "schedulerName");
  set(at.priority_class_name, edits.priority_class_name, "priorityClassName");
  merge(at.labels, edits.labels, "labels");
  merge(at.annotations, edits.annotations, "annotations");
}

void apply_root_edits(JsonPatchBuilder& patch, const RootEdits& edits, std::vector<std::string>& warnings) {
  if (!edits.labels.empty() && !patch.merge_map("/metadata/labels", edits.labels))
    warnings.push_back("metadata.labels: " + patch.error());
  if (!edits.annotations.empty() && !patch.merge_map("/metadata/annotations", edits.annotations))
    warnings.push_back("metadata.annotations: " + patch.error());
}

std::string make_patch(const WorkloadView& view, ObjectDocument& doc, const PodEdits& pods, const RootEdits& root,
                       std::vector<std::string>& warnings) {
  JsonPatchBuilder patch(doc.root());
  for (const auto& c : view.components)
    for (const auto& i : c.instances) apply_pod_edits(patch, i, pods, warnings);
  apply_root_edits(patch, root, warnings);
  return patch.str();
}

}  // namespace wm
