// Edits applied to every pod template of every instance at once, turned into one JSON Patch.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/json/json_patch.h"
#include "mapper/view/workload_view.h"

namespace wm::view {

struct PodEdits {
  std::optional<std::string> scheduler_name;
  std::optional<std::string> priority_class_name;
  json::StringPairs labels, annotations;        // on the pod template's metadata
  std::optional<std::string> scheduling_group;  // the pod spec's schedulingGroup.podGroupName
};

struct RootEdits {
  json::StringPairs labels, annotations;  // on the workload object's own metadata
};

// Adds one instance's edits to `patch`; what the definition cannot locate is reported in `warnings`.
void apply_pod_edits(json::JsonPatchBuilder& patch, const InstanceView& instance, const PodEdits& edits,
                     std::vector<std::string>& warnings);
void apply_root_edits(json::JsonPatchBuilder& patch, const RootEdits& edits, std::vector<std::string>& warnings);
// The profile's workload labels and annotations, also where the operator copies them to the workload objects it
// makes (WorkloadView::child_metadata).
void apply_child_metadata_edits(json::JsonPatchBuilder& patch, const WorkloadView& view, const RootEdits& edits,
                                std::vector<std::string>& warnings);
// Whether `instance`'s pod template metadata is one of the view's sub-group metadata (a RayCluster's worker group):
// its sub-group annotations then go with its pod edits, in one write.
bool is_sub_group_template(const WorkloadView& view, const InstanceView& instance);
// `annotations` on each sub-group metadata of the view that is no pod template's and that `write_at` accepts (on an
// UPDATE, only what the request changed: a JobSet's Job templates are immutable).
void apply_sub_group_edits(json::JsonPatchBuilder& patch, const WorkloadView& view,
                           const json::StringPairs& annotations,
                           const std::function<bool(const std::string&)>& write_at, std::vector<std::string>& warnings);

// Edits every pod-bearing instance of one view: at the pod fields the view locates, or, for pods whose templates a
// referenced object holds, gathered into the one entry of the object that the definition says workload-map owns
// (Definition::referenced_pod_edits: a TrainJob's runtimePatches entry), or into the one place the operator gives all
// pods (an Argo Workflow's spec.podMetadata), written by finish().
class PodEditor {
 public:
  PodEditor(const WorkloadView& view, json::JsonPatchBuilder& patch);
  void edit(const InstanceView& instance, const PodEdits& edits, std::vector<std::string>& warnings);
  // Writes the gathered entry (replacing workload-map's own, or adding it); once, after every instance.
  void finish(simdjson::dom::element root, std::vector<std::string>& warnings);

 private:
  struct Item {
    std::string id;
    json::StringPairs labels, annotations;
  };
  void gather_shared(const InstanceView& instance, const PodEdits& edits, std::vector<std::string>& warnings);
  void write_shared(std::vector<std::string>& warnings);

  json::JsonPatchBuilder& patch_;
  const catalog::ReferencedPodEdits* referenced_ = nullptr;
  std::vector<Item> items_;
  PodEdits shared_;  // every instance's edits, for ReferencedPodEdits::shared
};

// The same edits on every pod-bearing instance, plus the root's: the whole patch as JSON text.
std::string make_patch(const WorkloadView& view, json::ObjectDocument& doc, const PodEdits& pods, const RootEdits& root,
                       std::vector<std::string>& warnings);

}  // namespace wm::view
