#include "mapper/catalog/annotation_reader.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>

#include "base/yaml/yaml_guard.h"
#include "mapper/catalog/karta_reader.h"

namespace wm::catalog {

namespace {

class AnnotationReader {
 public:
  explicit AnnotationReader(DefinitionReader& r) : r_(r) {}

  void read(const YAML::Node& annotations, Definition& def) {
    same_schema_versions(annotations, def);
    named_minimums(annotations, def);
    sub_groups(annotations, def);
    extra_gangs(annotations, def);
    wrapped_objects(annotations, def);
    owns_only_components(annotations, def);
    references(annotations, def);
    if (annotations.IsMap()) {
      def.child_metadata = r_.path(annotations, kChildMetadataAnnotation.data(), "metadata.annotations");
      def.sub_group_metadata = r_.path(annotations, kSubGroupMetadataAnnotation.data(), "metadata.annotations");
    }
  }

 private:
  YAML::Node annotation_yaml(const YAML::Node& annotations, std::string_view key, YAML::Node& at, std::string& field);
  template <typename Each>
  void per_component(const YAML::Node& map, const YAML::Node& at, const std::string& field, Definition& def, Each each);
  void same_schema_versions(const YAML::Node& annotations, Definition& def);
  void named_minimums(const YAML::Node& annotations, Definition& def);
  void sub_groups(const YAML::Node& annotations, Definition& def);
  void extra_gangs(const YAML::Node& annotations, Definition& def);
  void wrapped_objects(const YAML::Node& annotations, Definition& def);
  void owns_only_components(const YAML::Node& annotations, Definition& def);
  void references(const YAML::Node& annotations, Definition& def);
  std::optional<ReferenceDefinition> reference(const std::string& name, const YAML::Node& spec, const YAML::Node& at,
                                               const std::string& f);
  Path reference_expression(const YAML::Node& spec, const char* key, const YAML::Node& at, const std::string& f,
                            bool required);
  std::optional<ReferenceDefinition::Kind> reference_kind(const YAML::Node& k, const YAML::Node& at,
                                                          const std::string& kf);
  void referenced_pod_edits(const YAML::Node& annotations, Definition& def);
  void pod_edit_entry(const YAML::Node& spec, const YAML::Node& at, const std::string& field,
                      ReferencedPodEdits& edits);
  ReferencedPodEdits::Shared shared_pod_edits(const YAML::Node& spec, const YAML::Node& at, const std::string& field);
  void read_pointer(const YAML::Node& spec, const char* key, const YAML::Node& at, const std::string& field,
                    bool required, std::string& out);

  DefinitionReader& r_;
};

// The YAML text of one of our annotations (Karta's schema has no field for what they hold, and a Karta is validated
// against it), parsed; null when absent or broken (reported). Errors name the annotation's line.
YAML::Node AnnotationReader::annotation_yaml(const YAML::Node& annotations, std::string_view key, YAML::Node& at,
                                             std::string& field) {
  if (!annotations.IsMap()) return {};
  const YAML::Node text = annotations[std::string(key)];
  if (!text.IsDefined()) return {};  // (assigning a missing node throws)
  at.reset(text);
  field = "metadata.annotations." + std::string(key);
  if (!at.IsScalar()) {
    r_.error(at, 0, field, "must be YAML text");
    return {};
  }
  if (auto too_deep = yaml::yaml_nesting_too_deep(at.Scalar())) {
    r_.error(at, 0, field, *too_deep);
    return {};
  }
  try {
    auto documents = yaml::load_all_documents(at.Scalar());
    if (documents.size() == 1 && documents.front().IsMap()) return documents.front();
    r_.error(at, 0, field, "must be a mapping");
  } catch (const YAML::Exception& e) {
    r_.error(at, 0, field, "is not YAML (its line " + std::to_string(yaml::error_line(e, 1)) + "): " + e.msg);
  }
  return {};
}

// {component: jq} in an annotation: one expression per named component that has a scaleDefinition.
template <typename Each>
void AnnotationReader::per_component(const YAML::Node& map, const YAML::Node& at, const std::string& field,
                                     Definition& def, Each each) {
  if (!map.IsMap()) return r_.error(at, 0, field, "must map component names to jq expressions");
  for (const auto& entry : map) {
    const std::string component = entry.first.Scalar(), f = field + "." + component;
    auto it = std::find_if(def.components.begin(), def.components.end(),
                           [&](const ComponentDefinition& c) { return c.name == component; });
    if (it == def.components.end() || !it->scale) {
      r_.error(at, 0, f, "names no component with a scaleDefinition");
      continue;
    }
    if (!entry.second.IsScalar() || entry.second.Scalar().empty()) {
      r_.error(at, 0, f, "must be a jq expression");
      continue;
    }
    if (Path path = r_.expression(entry.second.Scalar(), at, DefinitionReader::line_of(at), f))
      each(*it->scale, std::move(path));
  }
}

void AnnotationReader::same_schema_versions(const YAML::Node& annotations, Definition& def) {
  if (!annotations.IsMap()) return;
  const YAML::Node also = annotations["workload-map.io/same-schema-versions"];
  if (!also.IsDefined()) return;
  if (!also.IsScalar()) {
    r_.error(also, 0, "metadata.annotations.workload-map.io/same-schema-versions",
             "must be a string of versions, separated by commas");
    return;
  }
  std::stringstream list(also.Scalar());
  for (std::string v; std::getline(list, v, ',');) {
    v.erase(0, v.find_first_not_of(' '));
    v.erase(v.find_last_not_of(' ') + 1);
    if (!v.empty()) def.versions.push_back(v);
  }
}

// workload-map.io/minimums: {name: {component: minReplicasPath}}. Karta has one minimum per component; a scheduler
// that counts another way (KubeRay's Volcano integration against KAI's Ray grouper) gets its own, by name.
void AnnotationReader::named_minimums(const YAML::Node& annotations, Definition& def) {
  YAML::Node at;
  std::string field;
  const YAML::Node names = annotation_yaml(annotations, kMinimumsAnnotation, at, field);
  for (const auto& by_name : names) {
    const std::string name = by_name.first.Scalar();
    per_component(by_name.second, at, field + "." + name, def,
                  [&](ScaleDefinition& scale, Path path) { scale.named_min_replicas.emplace_back(name, path); });
  }
}

// workload-map.io/sub-groups: {minSubGroups: jq, minimums: {component: jq}}. KAI's hierarchical PodGroup needs
// minSubGroups of its sub-groups, each whole once it starts; minReplicasPath stays what must start together first.
void AnnotationReader::sub_groups(const YAML::Node& annotations, Definition& def) {
  YAML::Node at;
  std::string field;
  const YAML::Node spec = annotation_yaml(annotations, kSubGroupsAnnotation, at, field);
  if (!spec.IsMap()) return;
  r_.map(spec, at, field, {"minSubGroups", "minimums"});
  if (const YAML::Node n = spec["minSubGroups"]; n.IsDefined()) {
    if (n.IsScalar() && !n.Scalar().empty())
      def.min_sub_groups = r_.expression(n.Scalar(), at, DefinitionReader::line_of(at), field + ".minSubGroups");
    else
      r_.error(at, 0, field + ".minSubGroups", "must be a jq expression");
  }
  if (const YAML::Node m = spec["minimums"]; m.IsDefined())
    per_component(m, at, field + ".minimums", def,
                  [](ScaleDefinition& scale, Path path) { scale.sub_group_min_replicas = std::move(path); });
}

void AnnotationReader::extra_gangs(const YAML::Node& annotations, Definition& def) {
  if (annotations.IsMap()) def.extra_gangs = r_.path(annotations, kExtraGangsAnnotation.data(), "metadata.annotations");
}

void AnnotationReader::owns_only_components(const YAML::Node& annotations, Definition& def) {
  if (!annotations.IsMap()) return;
  const YAML::Node flag = annotations[std::string(kOwnsOnlyComponentsAnnotation)];
  if (!flag.IsDefined()) return;
  if (!flag.IsScalar() || (flag.Scalar() != "true" && flag.Scalar() != "false"))
    r_.error(flag, 0, "metadata.annotations." + std::string(kOwnsOnlyComponentsAnnotation),
             "must be \"true\" or \"false\"");
  else
    def.owns_only_components = flag.Scalar() == "true";
}

void AnnotationReader::wrapped_objects(const YAML::Node& annotations, Definition& def) {
  if (annotations.IsMap())
    def.wrapped_objects = r_.path(annotations, kWrappedObjectsAnnotation.data(), "metadata.annotations");
}

// workload-map.io/references: {name: {kinds: [{group, version, kind, namespaced}], kind: jq, name: jq}}, read
// together with workload-map.io/resolved-object, which says what the definition's paths read.
void AnnotationReader::references(const YAML::Node& annotations, Definition& def) {
  YAML::Node at;
  std::string field;
  const YAML::Node refs = annotation_yaml(annotations, kReferencesAnnotation, at, field);
  for (const auto& entry : refs)
    if (auto r = reference(entry.first.Scalar(), entry.second, at, field + "." + entry.first.Scalar()))
      def.references.push_back(std::move(*r));
  if (annotations.IsMap())
    def.resolved_object = r_.path(annotations, kResolvedObjectAnnotation.data(), "metadata.annotations");
  if (!def.references.empty() && !def.resolved_object)
    r_.error(annotations, 0, "metadata.annotations." + std::string(kResolvedObjectAnnotation),
             "is required with " + std::string(kReferencesAnnotation) + ": the references are read through it");
  referenced_pod_edits(annotations, def);
  if (def.references.empty() && def.resolved_object)
    r_.error(annotations, 0, "metadata.annotations." + std::string(kResolvedObjectAnnotation),
             "reads references, but " + std::string(kReferencesAnnotation) + " names none");
}

// One entry of workload-map.io/references; the annotation's text is all at `at` (a YAML string inside YAML).
std::optional<ReferenceDefinition> AnnotationReader::reference(const std::string& name, const YAML::Node& spec,
                                                               const YAML::Node& at, const std::string& f) {
  if (!r_.map(spec, at, f, {"kinds", "kind", "name", "optional"})) return std::nullopt;
  ReferenceDefinition r;
  r.name = name;
  if (const YAML::Node n = spec["optional"]; n.IsDefined()) {
    if (n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false"))
      r.optional = n.Scalar() == "true";
    else
      r_.error(at, 0, f + ".optional", "must be true or false");
  }
  if (const YAML::Node kinds = spec["kinds"]; kinds.IsDefined() && kinds.IsSequence() && kinds.size() > 0) {
    for (size_t i = 0; i < kinds.size(); ++i)
      if (auto kind = reference_kind(kinds[i], at, f + ".kinds[" + std::to_string(i) + "]"))
        r.kinds.push_back(std::move(*kind));
  } else {
    r_.error(at, 0, f + ".kinds", "must list the kinds the reference may name");
  }
  r.kind = reference_expression(spec, "kind", at, f, r.kinds.size() > 1);
  r.object_name = reference_expression(spec, "name", at, f, true);
  return r;
}

// A reference's kind or name: a jq expression over the object.
Path AnnotationReader::reference_expression(const YAML::Node& spec, const char* key, const YAML::Node& at,
                                            const std::string& f, bool required) {
  const YAML::Node n = spec[key];
  if (!n.IsDefined() || n.IsNull()) {
    if (required) r_.error(at, 0, f + "." + key, "is required: a jq expression");
    return nullptr;
  }
  if (!n.IsScalar() || n.Scalar().empty()) {
    r_.error(at, 0, f + "." + key, "must be a jq expression");
    return nullptr;
  }
  return r_.expression(n.Scalar(), at, DefinitionReader::line_of(at), f + "." + key);
}

std::optional<ReferenceDefinition::Kind> AnnotationReader::reference_kind(const YAML::Node& k, const YAML::Node& at,
                                                                          const std::string& kf) {
  if (!k.IsMap()) {
    r_.error(at, 0, kf, "must give version and kind (and group, and namespaced: false for a cluster-scoped kind)");
    return std::nullopt;
  }
  auto gvk = read_gvk(r_, k, kf, false);
  if (!gvk) return std::nullopt;
  ReferenceDefinition::Kind kind;
  kind.gvk = std::move(*gvk);
  if (const YAML::Node n = k["namespaced"]; n.IsDefined()) {
    if (n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false"))
      kind.namespaced = n.Scalar() == "true";
    else
      r_.error(at, 0, kf + ".namespaced", "must be true or false");
  }
  return kind;
}

// workload-map.io/referenced-pod-edits: {list, entry: {key: value}, instanceList, instanceKey, podMetadata}.
void AnnotationReader::referenced_pod_edits(const YAML::Node& annotations, Definition& def) {
  YAML::Node at;
  std::string field;
  const YAML::Node spec = annotation_yaml(annotations, kReferencedPodEditsAnnotation, at, field);
  if (!spec.IsMap()) return;
  ReferencedPodEdits edits;
  if (!def.resolved_object)
    r_.error(at, 0, field, "is for pods from referenced objects: it needs " + std::string(kReferencesAnnotation));
  if (spec["shared"].IsDefined()) {
    r_.map(spec, at, field, {"shared"});
    edits.shared = shared_pod_edits(spec["shared"], at, field + ".shared");
    def.referenced_pod_edits = std::move(edits);
    return;
  }
  auto pointer = [&](const char* key, std::string& out) { read_pointer(spec, key, at, field, true, out); };
  r_.map(spec, at, field, {"list", "entry", "instanceList", "instanceKey", "podMetadata"});
  pointer("list", edits.list);
  pointer("instanceList", edits.instance_list);
  pointer("podMetadata", edits.pod_metadata);
  if (const YAML::Node k = spec["instanceKey"]; k.IsDefined() && k.IsScalar() && !k.Scalar().empty())
    edits.instance_key = k.Scalar();
  else
    r_.error(at, 0, field + ".instanceKey", "must name the field that holds an instance's id");
  pod_edit_entry(spec, at, field, edits);
  def.referenced_pod_edits = std::move(edits);
}

// shared: {podMetadata, schedulerName, priorityClassName}: pointers into the object.
ReferencedPodEdits::Shared AnnotationReader::shared_pod_edits(const YAML::Node& spec, const YAML::Node& at,
                                                              const std::string& field) {
  ReferencedPodEdits::Shared shared;
  if (!spec.IsMap()) {
    r_.error(at, 0, field, "must map podMetadata (and schedulerName, priorityClassName) to JSON pointers");
    return shared;
  }
  r_.map(spec, at, field, {"podMetadata", "schedulerName", "priorityClassName"});
  read_pointer(spec, "podMetadata", at, field, true, shared.pod_metadata);
  read_pointer(spec, "schedulerName", at, field, false, shared.scheduler_name);
  read_pointer(spec, "priorityClassName", at, field, false, shared.priority_class_name);
  return shared;
}

void AnnotationReader::read_pointer(const YAML::Node& spec, const char* key, const YAML::Node& at,
                                    const std::string& field, bool required, std::string& out) {
  const YAML::Node n = spec[key];
  if (!n.IsDefined() && !required) return;
  if (n.IsDefined() && n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] == '/') {
    out = n.Scalar();
    return;
  }
  r_.error(at, 0, field + "." + key, "must be a JSON pointer (/a/b)");
}

// The entry's {key: value}: the fields that tell workload-map's entry in the list apart.
void AnnotationReader::pod_edit_entry(const YAML::Node& spec, const YAML::Node& at, const std::string& field,
                                      ReferencedPodEdits& edits) {
  const YAML::Node e = spec["entry"];
  if (!e.IsDefined() || !e.IsMap() || e.size() == 0) {
    r_.error(at, 0, field + ".entry", "must map the fields that tell workload-map's entry apart to their values");
    return;
  }
  for (const auto& kv : e)
    if (kv.second.IsScalar() && !kv.second.Scalar().empty())
      edits.entry.emplace_back(kv.first.Scalar(), kv.second.Scalar());
    else
      r_.error(at, 0, field + ".entry." + kv.first.Scalar(), "must be a string");
}

}  // namespace

void read_annotations(DefinitionReader& r, const YAML::Node& annotations, Definition& def) {
  AnnotationReader(r).read(annotations, def);
}

}  // namespace wm::catalog
