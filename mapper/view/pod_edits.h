// Edits applied to every pod template of every instance at once, turned into one JSON Patch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mapper/json/json_patch.h"
#include "mapper/view/workload_view.h"

namespace wm {

struct PodEdits {
  std::optional<std::string> scheduler_name;
  std::optional<std::string> priority_class_name;
  StringPairs labels, annotations;  // on the pod template's metadata
};

struct RootEdits {
  StringPairs labels, annotations;  // on the workload object's own metadata
};

// Adds one instance's edits to `patch`; what the definition cannot locate is reported in `warnings`.
void apply_pod_edits(JsonPatchBuilder& patch, const InstanceView& instance, const PodEdits& edits,
                     std::vector<std::string>& warnings);
void apply_root_edits(JsonPatchBuilder& patch, const RootEdits& edits, std::vector<std::string>& warnings);

// The same edits on every pod-bearing instance, plus the root's: the whole patch as JSON text.
std::string make_patch(const WorkloadView& view, ObjectDocument& doc, const PodEdits& pods, const RootEdits& root,
                       std::vector<std::string>& warnings);

}  // namespace wm
