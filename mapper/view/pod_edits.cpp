#include "mapper/view/pod_edits.h"

#include <algorithm>

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"

namespace wm::view {

namespace {

void note(std::vector<std::string>& warnings, const InstanceView& instance, const char* what, const std::string& why) {
  warnings.push_back("component " + instance.component + " instance " + instance.id + ": " + what + ": " + why);
}

}  // namespace

void apply_pod_edits(json::JsonPatchBuilder& patch, const InstanceView& instance, const PodEdits& edits,
                     std::vector<std::string>& warnings) {
  if (instance.shape == PodShape::Logical) return;
  const PodFieldLocations& at = instance.fields;
  if (!at.scheduler_name && !at.priority_class_name && !at.labels && !at.annotations) {
    // A kind whose API has no place for them (NIMCache), or pods from an operator's default template (a RayJob's
    // submitter): one warning, not one per field.
    if (edits.scheduler_name || edits.priority_class_name || !edits.labels.empty() || !edits.annotations.empty())
      note(warnings, instance, "pods not edited",
           "the definition locates no pod field (the API has none, or the pods come from the operator's defaults "
           "or from a referenced object)");
    return;
  }
  auto set = [&](const std::optional<std::string>& where, const std::optional<std::string>& value, const char* what) {
    if (!value) return;
    if (!where) return note(warnings, instance, what, "the definition does not locate this field");
    if (auto done = patch.set_string(*where, *value); !done) note(warnings, instance, what, done.error());
  };
  auto merge = [&](const std::optional<std::string>& where, const json::StringPairs& entries, const char* what) {
    if (entries.empty()) return;
    if (!where) return note(warnings, instance, what, "the definition does not locate this field");
    if (auto done = patch.merge_map(*where, entries); !done) note(warnings, instance, what, done.error());
  };
  set(at.scheduler_name, edits.scheduler_name, "schedulerName");
  if (edits.scheduling_group)  // a pod spec of its own only: a fragmented spec has no single place for it
    if (const auto spec = instance.pod_spec_location())
      if (auto done = patch.set_string(*spec + "/schedulingGroup/podGroupName", *edits.scheduling_group); !done)
        note(warnings, instance, "schedulingGroup", done.error());
  set(at.priority_class_name, edits.priority_class_name, "priorityClassName");
  merge(at.labels, edits.labels, "labels");
  merge(at.annotations, edits.annotations, "annotations");
}

namespace {

// Labels and annotations merged into the metadata at `at` (a child's, the pods' shared metadata).
void merge_metadata(json::JsonPatchBuilder& patch, const std::string& at, const json::StringPairs& labels,
                    const json::StringPairs& annotations, std::vector<std::string>& warnings) {
  for (const auto& [key, entries] : {std::pair{"labels", &labels}, {"annotations", &annotations}}) {
    if (entries->empty()) continue;
    const std::string where = at + "/" + key;
    if (auto done = patch.merge_map(where, *entries); !done) warnings.push_back(where + ": " + done.error());
  }
}

}  // namespace

void apply_child_metadata_edits(json::JsonPatchBuilder& patch, const WorkloadView& view, const RootEdits& edits,
                                std::vector<std::string>& warnings) {
  for (const auto& at : view.child_metadata) merge_metadata(patch, at, edits.labels, edits.annotations, warnings);
}

namespace {

// Whether `metadata` is the metadata of one of the view's pod templates.
bool is_pod_template_metadata(const WorkloadView& view, const std::string& metadata) {
  return std::any_of(view.components.begin(), view.components.end(), [&](const ComponentView& c) {
    return std::any_of(c.instances.begin(), c.instances.end(), [&](const InstanceView& i) {
      return i.shape == PodShape::PodTemplate && i.location + "/metadata" == metadata;
    });
  });
}

}  // namespace

bool is_sub_group_template(const WorkloadView& view, const InstanceView& instance) {
  if (view.sub_group_metadata.empty() || instance.shape != PodShape::PodTemplate) return false;
  const std::string metadata = instance.location + "/metadata";
  return std::find(view.sub_group_metadata.begin(), view.sub_group_metadata.end(), metadata) !=
         view.sub_group_metadata.end();
}

void apply_sub_group_edits(json::JsonPatchBuilder& patch, const WorkloadView& view,
                           const json::StringPairs& annotations,
                           const std::function<bool(const std::string&)>& write_at,
                           std::vector<std::string>& warnings) {
  if (annotations.empty()) return;
  for (const auto& at : view.sub_group_metadata)  // a pod template's went with its pod edits
    if (!is_pod_template_metadata(view, at) && write_at(at)) merge_metadata(patch, at, {}, annotations, warnings);
}

// Literal pointers, not merge_metadata's: every admission writes these (0.5% of a review's instructions).
void apply_root_edits(json::JsonPatchBuilder& patch, const RootEdits& edits, std::vector<std::string>& warnings) {
  if (!edits.labels.empty())
    if (auto done = patch.merge_map("/metadata/labels", edits.labels); !done)
      warnings.push_back("metadata.labels: " + done.error());
  if (!edits.annotations.empty())
    if (auto done = patch.merge_map("/metadata/annotations", edits.annotations); !done)
      warnings.push_back("metadata.annotations: " + done.error());
}

namespace {

// "k":"v",... : an object's members, without its braces.
std::string members_json(const json::StringPairs& pairs) {
  std::string out;
  for (const auto& [key, value] : pairs) {
    if (!out.empty()) out += ',';
    json::append_json_string(out, key);
    out += ':';
    json::append_json_string(out, value);
  }
  return out;
}

// {"k":"v",...} in key order, so that an entry written again unchanged compares equal to the stored one (the API
// server stores objects' maps in key order).
std::string sorted_map_json(json::StringPairs pairs) {
  std::sort(pairs.begin(), pairs.end());
  return "{" + members_json(pairs) + "}";
}

// `fields` (JSON members, without braces) and `inner` at `pointer` below them, as one object's text.
std::string object_with(const std::string& fields, std::string_view pointer, const std::string& inner) {
  const std::vector<std::string> tokens = json::split_pointer(pointer);
  std::string nested = inner;
  for (auto t = tokens.rbegin(); t != tokens.rend(); ++t) {
    std::string wrapped = "{";
    if (t + 1 == tokens.rend() && !fields.empty()) wrapped += fields + ",";
    json::append_json_string(wrapped, *t);
    nested = wrapped + ":" + nested + "}";
  }
  if (tokens.empty()) return "{" + fields + "}";
  return nested;
}

}  // namespace

PodEditor::PodEditor(const WorkloadView& view, json::JsonPatchBuilder& patch) : patch_(patch) {
  if (view.resolved && view.definition && view.definition->referenced_pod_edits)
    referenced_ = &*view.definition->referenced_pod_edits;
}

void PodEditor::edit(const InstanceView& instance, const PodEdits& edits, std::vector<std::string>& warnings) {
  if (!referenced_) return apply_pod_edits(patch_, instance, edits, warnings);
  if (instance.shape == PodShape::Logical) return;
  if (referenced_->shared) return gather_shared(instance, edits, warnings);
  if (edits.scheduler_name || edits.priority_class_name)
    note(warnings, instance, "schedulerName and priorityClassName not set",
         "the pods' template is in a referenced object, and " + referenced_->list + " has no place for them");
  if (!edits.labels.empty() || !edits.annotations.empty())
    items_.push_back({instance.id, edits.labels, edits.annotations});
}

// One place holds every pod's edits: an instance that asks for another value of a key than an earlier one keeps the
// earlier (a per-instance value, like YuniKorn's task group, cannot be told apart there).
void PodEditor::gather_shared(const InstanceView& instance, const PodEdits& edits, std::vector<std::string>& warnings) {
  auto one = [&](std::optional<std::string>& held, const std::optional<std::string>& wanted, const char* what) {
    if (!wanted) return;
    if (!held) held = wanted;
    if (*held != *wanted) note(warnings, instance, what, "its pods share one value with the others': " + *held);
  };
  auto merge = [&](json::StringPairs& held, const json::StringPairs& wanted, const char* what) {
    for (const auto& entry : wanted) {  // not a structured binding: clang's C++20 does not capture those
      auto it = std::find_if(held.begin(), held.end(), [&](const auto& kv) { return kv.first == entry.first; });
      if (it == held.end())
        held.push_back(entry);
      else if (it->second != entry.second)
        note(warnings, instance, what, entry.first + " is shared by all its pods: " + it->second + " is kept");
    }
  };
  one(shared_.scheduler_name, edits.scheduler_name, "schedulerName");
  one(shared_.priority_class_name, edits.priority_class_name, "priorityClassName");
  merge(shared_.labels, edits.labels, "labels");
  merge(shared_.annotations, edits.annotations, "annotations");
}

void PodEditor::write_shared(std::vector<std::string>& warnings) {
  const catalog::ReferencedPodEdits::Shared& at = *referenced_->shared;
  auto set = [&](const std::string& where, const std::optional<std::string>& value, const char* what) {
    if (!value) return;
    if (where.empty())
      warnings.push_back(std::string(what) + " not set: the pods' template is in a referenced object");
    else if (auto done = patch_.set_string(where, *value); !done)
      warnings.push_back(where + ": " + done.error());
  };
  set(at.scheduler_name, shared_.scheduler_name, "schedulerName");
  set(at.priority_class_name, shared_.priority_class_name, "priorityClassName");
  merge_metadata(patch_, at.pod_metadata, shared_.labels, shared_.annotations, warnings);
}

void PodEditor::finish(simdjson::dom::element root, std::vector<std::string>& warnings) {
  if (referenced_ && referenced_->shared) return write_shared(warnings);
  if (!referenced_ || items_.empty()) return;
  const catalog::ReferencedPodEdits& at = *referenced_;
  std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.id < b.id; });
  std::string items = "[";
  for (size_t n = 0; n < items_.size(); ++n) {
    std::string metadata = "{";
    if (!items_[n].annotations.empty()) metadata += "\"annotations\":" + sorted_map_json(items_[n].annotations);
    if (!items_[n].labels.empty())
      metadata += std::string(metadata.size() > 1 ? "," : "") + "\"labels\":" + sorted_map_json(items_[n].labels);
    metadata += "}";
    items += (n ? "," : "") + object_with(members_json({{at.instance_key, items_[n].id}}), at.pod_metadata, metadata);
  }
  items += "]";
  const std::string entry = object_with(members_json(at.entry), at.instance_list, items);

  // workload-map's own entry, if the object has one already: replaced whole.
  simdjson::dom::array list;
  if (root.at_pointer(at.list).get_array().get(list) == simdjson::SUCCESS) {
    size_t index = 0;
    for (simdjson::dom::element e : list) {
      const bool ours = std::all_of(at.entry.begin(), at.entry.end(), [&](const auto& kv) {
        std::string_view value;
        return e.at_key(kv.first).get_string().get(value) == simdjson::SUCCESS && value == kv.second;
      });
      if (ours) {
        if (auto done = patch_.set(json::pointer_child(at.list, std::to_string(index)), entry); !done)
          warnings.push_back(at.list + ": " + done.error());
        return;
      }
      ++index;
    }
  }
  if (auto done = patch_.append(at.list, entry); !done) warnings.push_back(at.list + ": " + done.error());
}

std::string make_patch(const WorkloadView& view, json::ObjectDocument& doc, const PodEdits& pods, const RootEdits& root,
                       std::vector<std::string>& warnings) {
  json::JsonPatchBuilder patch(doc.root());
  PodEditor editor(view, patch);
  for (const auto& c : view.components)
    for (const auto& i : c.instances) editor.edit(i, pods, warnings);
  editor.finish(doc.root(), warnings);
  apply_child_metadata_edits(patch, view, root, warnings);
  apply_root_edits(patch, root, warnings);
  return patch.str();
}

}  // namespace wm::view
