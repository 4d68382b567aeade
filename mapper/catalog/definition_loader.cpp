#include "mapper/catalog/definition_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <set>
#include <sstream>

#include "base/yaml/yaml_guard.h"
#include "base/yaml/yaml_reader.h"
#include "mapper/expr/jq_guard.h"

namespace wm::catalog {

const ComponentDefinition* Definition::component(const std::string& name) const {
  for (const auto& c : components)
    if (c.name == name) return &c;
  return nullptr;
}

void for_each_object_path(const Definition& definition,
                          const std::function<void(const std::string& field, const Path& path)>& each) {
  auto visit = [&](const std::string& field, const Path& path) {
    if (path) each(field, path);
  };
  for (const auto& c : definition.components) {
    const std::string at = c.name + ".";
    if (c.spec) {
      visit(at + "podTemplateSpecPath", c.spec->pod_template_spec);
      visit(at + "podSpecPath", c.spec->pod_spec);
      visit(at + "metadataPath", c.spec->metadata);
      if (const auto& f = c.spec->fragmented) {
        for (const auto& field : kFragmentedFields) visit(at + field.name, (*f).*field.member);
      }
    }
    if (c.scale) {
      visit(at + "replicasPath", c.scale->replicas);
      visit(at + "minReplicasPath", c.scale->min_replicas);
      visit(at + "maxReplicasPath", c.scale->max_replicas);
      for (const auto& [name, path] : c.scale->named_min_replicas) visit(at + name + ".minReplicasPath", path);
      visit(at + "sub-groups.minReplicasPath", c.scale->sub_group_min_replicas);
    }
    visit(at + "instanceIdPath", c.instance_id);
    if (c.status) {
      visit(at + "phaseDefinition.path", c.status->phase);
      visit(at + "conditionsDefinition.path", c.status->conditions);
      for (const auto& [state, matchers] : c.status->mappings)
        for (const auto& m : matchers) visit(at + "statusMappings." + state + ".byExpression", m.by_expression);
    }
  }
  visit("sub-groups.minSubGroups (a count, like minReplicasPath)", definition.min_sub_groups);
  visit("extra-gangs", definition.extra_gangs);
  visit("wrapped-objects", definition.wrapped_objects);
  for (const auto& r : definition.references) {
    visit("references." + r.name + ".kind", r.kind);
    visit("references." + r.name + ".name", r.object_name);
  }
}

namespace {

// jq's messages span lines and end with a count; keep the first sentence on one line.
std::string one_line(std::string message) {
  if (auto cut = message.find(" at <top-level>"); cut != std::string::npos) message.resize(cut);
  for (char& c : message)
    if (c == '\n') c = ' ';
  if (message.rfind("jq: error: ", 0) == 0) message.erase(0, 11);
  return message;
}

// The definitions' reader: YamlReader's fields, and jq expressions queued for compiling with the rest of the load.
class Reader : public yaml::YamlReader {
 public:
  Reader(std::string file, yaml::Diagnostics& errors, std::shared_ptr<expr::JqLibrary> library,
         std::vector<DefinitionLoader::PendingCheck>& checks, size_t document)
      : yaml::YamlReader(std::move(file), errors), library_(std::move(library)), checks_(checks), document_(document) {}

  Path path(const YAML::Node& parent, const char* key, const std::string& field, bool required = false) {
    auto source = string(parent, key, field, required);
    if (!source) return nullptr;
    std::string name = field + "." + key;
    if (source->empty()) {
      error(parent[key], line_of(parent), name, "is an empty jq expression");
      return nullptr;
    }
    return expression(*source, parent[key], line_of(parent), name);
  }

  // Compiled later, with every other expression of the load (DefinitionLoader::finish).
  Path expression(const std::string& source, const YAML::Node& at, int fallback_line, const std::string& field) {
    if (source.find('\0') != std::string::npos) {
      // libjq reads a C string: it would compile only what comes before the NUL, the native engine all of it.
      error(at, fallback_line, field, "jq expression contains a NUL character");
      return nullptr;
    }
    if (auto construct = expr::unbounded_jq_construct(source)) {
      error(at, fallback_line, field,
            "jq expression uses " + *construct +
                ", which may not terminate or reaches outside the object; definitions run on every admission");
      return nullptr;
    }
    auto path = std::make_shared<const expr::PathExpression>(source, library_);
    if (auto index = path->library_index())
      checks_.push_back({*index, {file(), line_at(at, fallback_line), field, ""}, document_});
    return path;
  }

 private:
  std::shared_ptr<expr::JqLibrary> library_;
  std::vector<DefinitionLoader::PendingCheck>& checks_;
  size_t document_;
};

// The states a statusMappings may map, in the order the view tries them.
const char* const kStates[] = {"initializing", "running",   "completed",  "failed",
                               "degraded",     "suspended", "suspending", "resuming"};

class DefinitionReader {
 public:
  DefinitionReader(Reader& r) : r_(r) {}

  std::optional<Definition> read(const YAML::Node& doc) {
    // `status` is what `kubectl get karta -o yaml` returns beside the spec (the upstream operator's conditions):
    // accepted and not read, so that a Karta exported from a cluster loads unchanged.
    if (!r_.map(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"})) return std::nullopt;
    if (YAML::Node status = doc["status"]; status.IsDefined() && !status.IsNull() && !status.IsMap())
      r_.error(status, 0, "status", "must be an object");
    auto api = r_.string(doc, "apiVersion", "", true);
    auto kind = r_.string(doc, "kind", "", true);
    if (api && *api != "run.ai/v1alpha1") r_.error(doc["apiVersion"], 0, "apiVersion", "must be run.ai/v1alpha1");
    if (kind && *kind != "Karta") r_.error(doc["kind"], 0, "kind", "must be Karta");
    Definition def;
    def.file = r_.file();
    YAML::Node metadata = doc["metadata"];
    if (metadata.IsMap()) {
      def.name = r_.string(metadata, "name", "metadata", true).value_or("");
    } else {
      r_.error(doc, 1, "metadata", "is required, with a name");
    }
    YAML::Node spec = doc["spec"];
    if (!spec.IsDefined()) {
      r_.error(doc, 1, "spec", "is required");
      return std::nullopt;
    }
    if (!r_.map(spec, "spec", {"structureDefinition", "optimizationInstructions"})) return std::nullopt;
    YAML::Node structure = spec["structureDefinition"];
    if (!structure.IsDefined()) {
      r_.error(spec, Reader::line_of(spec), "spec.structureDefinition", "is required");
      return std::nullopt;
    }
    const std::string sd = "spec.structureDefinition";
    if (!r_.map(structure, sd, {"rootComponent", "childComponents", "additionalChildKinds"})) return std::nullopt;
    YAML::Node root = structure["rootComponent"];
    if (!root.IsDefined()) {
      r_.error(structure, Reader::line_of(structure), sd + ".rootComponent", "is required");
      return std::nullopt;
    }
    def.components.push_back(component(root, sd + ".rootComponent", true));
    r_.sequence(structure, "childComponents", sd,
                [&](const YAML::Node& n, const std::string& f) { def.components.push_back(component(n, f, false)); });
    r_.sequence(structure, "additionalChildKinds", sd, [&](const YAML::Node& n, const std::string& f) {
      if (!r_.map(n, f, {"group", "version", "kind"})) return;
      if (auto child = gvk(n, f, false)) def.child_kinds.push_back(std::move(*child));
    });
    if (def.components.front().kind) def.gvk = *def.components.front().kind;
    def.versions.push_back(def.gvk.version);
    if (metadata.IsMap()) annotations(metadata["annotations"], def);
    check_structure(def, structure, sd);
    gang_scheduling(spec["optimizationInstructions"], def);
    return def;
  }

 private:
  // What the definition says in metadata.annotations, beyond what a Karta's spec can.
  void annotations(const YAML::Node& annotations, Definition& def) {
    same_schema_versions(annotations, def);
    named_minimums(annotations, def);
    sub_groups(annotations, def);
    extra_gangs(annotations, def);
    wrapped_objects(annotations, def);
    owns_only_components(annotations, def);
    references(annotations, def);
  }

  void gang_scheduling(const YAML::Node& optimization, Definition& def) {
    if (!optimization.IsDefined() || !r_.map(optimization, "spec.optimizationInstructions", {"gangScheduling"})) return;
    YAML::Node gang = optimization["gangScheduling"];
    const std::string gf = "spec.optimizationInstructions.gangScheduling";
    if (!gang.IsDefined() || !r_.map(gang, gf, {"podGroups", "podGroup"})) return;
    r_.sequence(gang, "podGroups", gf,
                [&](const YAML::Node& n, const std::string& f) { def.pod_groups.push_back(pod_group(n, f, def)); });
    if (gang["podGroup"].IsDefined()) def.pod_group = gang_pod_group(gang["podGroup"], gf + ".podGroup", def);
  }
  std::optional<GroupVersionKind> gvk(const YAML::Node& node, const std::string& field, bool group_required) {
    GroupVersionKind out;
    auto group = r_.string(node, "group", field, false);
    auto version = r_.string(node, "version", field, true);
    auto kind = r_.string(node, "kind", field, true);
    if (!version || !kind) return std::nullopt;
    if (!group && group_required && *kind != "Pod")
      r_.error(node, Reader::line_of(node), field + ".group", "is required (only the core Pod kind may omit it)");
    out.group = group.value_or("");
    out.version = *version;
    out.kind = *kind;
    return out;
  }

  ComponentDefinition component(const YAML::Node& node, const std::string& field, bool is_root) {
    ComponentDefinition c;
    c.line = Reader::line_of(node);
    if (!r_.map(node, field,
                {"name", "kind", "ownerRef", "specDefinition", "scaleDefinition", "instanceIdPath", "podSelector",
                 "statusDefinition", "suspendDefinition"}))
      return c;
    c.name = r_.string(node, "name", field, false).value_or("");
    if (c.name.empty()) r_.error(node, c.line, field + ".name", "component name is empty");
    if (node["kind"].IsDefined()) {
      const std::string kf = field + ".kind";
      if (r_.map(node["kind"], kf, {"group", "version", "kind"})) c.kind = gvk(node["kind"], kf, true);
    } else if (is_root) {
      r_.error(node, c.line, field + ".kind", "the root component must name its group, version and kind");
    }
    auto owner = r_.string(node, "ownerRef", field, false);
    if (is_root && owner)
      r_.error(node["ownerRef"], c.line, field + ".ownerRef", "the root component cannot have an owner");
    if (!is_root && (!owner || owner->empty()))
      r_.error(node, c.line, field + ".ownerRef", "child component '" + c.name + "' has no ownerRef");
    c.owner = owner.value_or("");

    if (node["specDefinition"].IsDefined()) c.spec = spec(node["specDefinition"], field + ".specDefinition", c.name);
    if (node["scaleDefinition"].IsDefined()) {
      const std::string sf = field + ".scaleDefinition";
      YAML::Node s = node["scaleDefinition"];
      if (r_.map(s, sf, {"replicasPath", "minReplicasPath", "maxReplicasPath"}))
        c.scale = ScaleDefinition{r_.path(s, "replicasPath", sf), r_.path(s, "minReplicasPath", sf),
                                  r_.path(s, "maxReplicasPath", sf)};
    }
    c.instance_id = r_.path(node, "instanceIdPath", field);
    bool instance_selector = pod_selector(node["podSelector"], field + ".podSelector", c);
    if (c.instance_id && !instance_selector)
      r_.error(node["instanceIdPath"], c.line, field + ".instanceIdPath",
               "component '" + c.name + "' has an instanceIdPath but its podSelector has no componentInstanceSelector");
    if (!c.instance_id && instance_selector)
      r_.error(node["podSelector"], c.line, field + ".podSelector.componentInstanceSelector",
               "component '" + c.name + "' has a componentInstanceSelector but no instanceIdPath");
    if (node["statusDefinition"].IsDefined()) c.status = status(node["statusDefinition"], field + ".statusDefinition");
    if (is_root && !c.status)
      r_.error(node, c.line, field + ".statusDefinition", "the root component must have a statusDefinition");
    if (node["suspendDefinition"].IsDefined()) suspend(node["suspendDefinition"], field + ".suspendDefinition");
    return c;
  }

  std::optional<SpecDefinition> spec(const YAML::Node& node, const std::string& field, const std::string& name) {
    if (!r_.map(node, field, {"podTemplateSpecPath", "podSpecPath", "metadataPath", "fragmentedPodSpecDefinition"}))
      return std::nullopt;
    SpecDefinition s;
    s.pod_template_spec = r_.path(node, "podTemplateSpecPath", field);
    s.pod_spec = r_.path(node, "podSpecPath", field);
    s.metadata = r_.path(node, "metadataPath", field);
    std::vector<std::string> set;
    if (node["podTemplateSpecPath"].IsDefined()) set.push_back("podTemplateSpecPath");
    if (node["podSpecPath"].IsDefined()) set.push_back("podSpecPath");
    if (node["fragmentedPodSpecDefinition"].IsDefined()) set.push_back("fragmentedPodSpecDefinition");
    if (set.size() > 1)
      r_.error(node, Reader::line_of(node), field,
               "component '" + name + "' has both " + set[0] + " and " + set[1] + " (exactly one is allowed)");
    if (set.empty())
      r_.error(node, Reader::line_of(node), field,
               "needs one of podTemplateSpecPath, podSpecPath or fragmentedPodSpecDefinition");
    if (node["metadataPath"].IsDefined() && !node["podSpecPath"].IsDefined())
      r_.error(node["metadataPath"], Reader::line_of(node), field + ".metadataPath", "goes with podSpecPath only");
    YAML::Node f = node["fragmentedPodSpecDefinition"];
    if (f.IsDefined()) {
      const std::string ff = field + ".fragmentedPodSpecDefinition";
      std::vector<const char*> names;
      for (const auto& field : kFragmentedFields) names.push_back(field.name);
      if (r_.map(f, ff, names)) {
        FragmentedPodSpec p;
        for (const auto& field : kFragmentedFields) p.*field.member = r_.path(f, field.name, ff);
        if (f.size() == 0) r_.error(f, Reader::line_of(f), ff, "maps no pod field");
        s.fragmented = p;
      }
    }
    return s;
  }

  // Pod selectors match running pods, which admission never sees; they are checked, not used.
  bool pod_selector(const YAML::Node& node, const std::string& field, ComponentDefinition& c) {
    if (!node.IsDefined()) return false;
    if (!r_.map(node, field, {"componentTypeSelector", "componentInstanceSelector", "replicaSelector"})) return false;
    if (YAML::Node t = node["componentTypeSelector"]; t.IsDefined()) {
      const std::string tf = field + ".componentTypeSelector";
      // Upstream's newer form selects by labels (matchLabels, all must match) instead of, or beside, a keyPath.
      if (r_.map(t, tf, {"keyPath", "value", "matchLabels"})) {
        const YAML::Node labels = t["matchLabels"];
        r_.path(t, "keyPath", tf, !labels.IsDefined());
        r_.string(t, "value", tf, false);
        if (labels.IsDefined()) {
          if (!labels.IsMap() || labels.size() == 0)
            r_.error(labels, 0, tf + ".matchLabels", "must map label names to values");
          else
            for (const auto& label : labels)
              if (!label.second.IsScalar())
                r_.error(label.second, 0, tf + ".matchLabels." + label.first.Scalar(), "must be a string");
        }
      }
    }
    if (YAML::Node i = node["componentInstanceSelector"]; i.IsDefined()) {
      const std::string inf = field + ".componentInstanceSelector";
      if (r_.map(i, inf, {"idPath"})) r_.path(i, "idPath", inf, true);
    }
    if (YAML::Node rs = node["replicaSelector"]; rs.IsDefined()) {
      const std::string rf = field + ".replicaSelector";
      if (r_.map(rs, rf, {"keyPath"})) c.replica_key = r_.path(rs, "keyPath", rf, true);
    }
    return node["componentInstanceSelector"].IsDefined();
  }

  // Suspend/resume actions write the object; admission never does, so they are checked, not used.
  void suspend(const YAML::Node& node, const std::string& field) {
    if (!r_.map(node, field, {"suspendActions", "resumeActions"})) return;
    for (const char* key : {"suspendActions", "resumeActions"})
      r_.sequence(node, key, field, [&](const YAML::Node& n, const std::string& f) {
        if (r_.map(n, f, {"path", "value"})) {
          r_.path(n, "path", f, true);
          r_.string(n, "value", f, true);
        }
      });
  }

  std::optional<StatusDefinition> status(const YAML::Node& node, const std::string& field) {
    if (!r_.map(node, field, {"phaseDefinition", "conditionsDefinition", "statusMappings"})) return std::nullopt;
    StatusDefinition s;
    if (YAML::Node p = node["phaseDefinition"]; p.IsDefined() && r_.map(p, field + ".phaseDefinition", {"path"}))
      s.phase = r_.path(p, "path", field + ".phaseDefinition", true);
    if (YAML::Node c = node["conditionsDefinition"]; c.IsDefined()) {
      const std::string cf = field + ".conditionsDefinition";
      if (r_.map(c, cf, {"path", "typeFieldName", "statusFieldName", "messageFieldName", "reasonFieldName"})) {
        s.conditions = r_.path(c, "path", cf, true);
        s.type_field = r_.string(c, "typeFieldName", cf, false).value_or("type");
        s.status_field = r_.string(c, "statusFieldName", cf, false).value_or("status");
        r_.string(c, "messageFieldName", cf, false);  // Karta's schema has it; phases are read without messages
        s.reason_field = r_.string(c, "reasonFieldName", cf, false).value_or("reason");
      }
    }
    YAML::Node m = node["statusMappings"];
    const std::string mf = field + ".statusMappings";
    if (!m.IsDefined()) {
      r_.error(node, Reader::line_of(node), mf, "is required");
      return s;
    }
    if (!r_.map(m, mf, std::vector<const char*>(std::begin(kStates), std::end(kStates)))) return s;
    for (const char* state : kStates) {
      std::vector<StatusMatcher> matchers;
      r_.sequence(m, state, mf, [&](const YAML::Node& n, const std::string& f) {
        if (auto matcher = status_matcher(n, f, s)) matchers.push_back(std::move(*matcher));
      });
      if (!matchers.empty()) s.mappings.emplace_back(state, std::move(matchers));
    }
    return s;
  }

  std::optional<StatusMatcher> status_matcher(const YAML::Node& node, const std::string& field,
                                              const StatusDefinition& s) {
    if (!r_.map(node, field, {"byPhase", "byConditions", "byExpression"})) return std::nullopt;
    StatusMatcher m;
    m.by_phase = r_.string(node, "byPhase", field, false);
    if (m.by_phase && !s.phase)
      r_.error(node["byPhase"], 0, field + ".byPhase", "byPhase needs a phaseDefinition in this statusDefinition");
    r_.sequence(node, "byConditions", field, [&](const YAML::Node& n, const std::string& f) {
      if (!r_.map(n, f, {"type", "status", "reason"})) return;
      m.by_conditions.push_back({r_.string(n, "type", f, true).value_or(""),
                                 r_.string(n, "status", f, true).value_or(""),
                                 r_.string(n, "reason", f, false).value_or("")});
    });
    if (!m.by_conditions.empty() && !s.conditions)
      r_.error(node["byConditions"], 0, field + ".byConditions",
               "byConditions needs a conditionsDefinition in this statusDefinition");
    if (YAML::Node e = node["byExpression"]; e.IsDefined()) {
      const std::string ef = field + ".byExpression";
      if (r_.map(e, ef, {"expression", "expectedResult"})) {
        m.by_expression = r_.path(e, "expression", ef, true);
        m.expected_result = r_.string(e, "expectedResult", ef, true).value_or("");
      }
    }
    if (!m.by_phase && m.by_conditions.empty() && !node["byExpression"].IsDefined())
      r_.error(node, Reader::line_of(node), field, "a matcher needs byPhase, byConditions or byExpression");
    return m;
  }

  PodGroupDefinition pod_group(const YAML::Node& node, const std::string& field, const Definition& def) {
    PodGroupDefinition g;
    if (!r_.map(node, field, {"name", "members"})) return g;
    g.name = r_.string(node, "name", field, true).value_or("");
    r_.sequence(node, "members", field, [&](const YAML::Node& n, const std::string& f) {
      if (!r_.map(n, f, {"componentName", "groupByKeyPaths", "filters"})) return;
      PodGroupMember member;
      member.component = r_.string(n, "componentName", f, true).value_or("");
      if (!member.component.empty() && !def.component(member.component))
        r_.error(n["componentName"], 0, f + ".componentName",
                 "pod-group member component '" + member.component + "' is not defined");
      for (auto [key, list] : {std::pair{"groupByKeyPaths", &member.group_by_key_paths}, {"filters", &member.filters}})
        r_.sequence(n, key, f, [&, list = list](const YAML::Node& item, const std::string& itf) {
          if (!item.IsScalar()) {
            r_.error(item, 0, itf, "must be a jq expression");
            return;
          }
          Path compiled = r_.expression(item.Scalar(), item, 0, itf);
          list->push_back(item.Scalar());
          if (list == &member.filters && compiled) member.filter_paths.push_back(std::move(compiled));
        });
      g.members.push_back(std::move(member));
    });
    if (g.members.empty()) r_.error(node, Reader::line_of(node), field + ".members", "a pod group needs members");
    return g;
  }

  void same_schema_versions(const YAML::Node& annotations, Definition& def) {
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

  // The YAML text of one of our annotations (Karta's schema has no field for what they hold, and a Karta is validated
  // against it), parsed; null when absent or broken (reported). Errors name the annotation's line.
  YAML::Node annotation_yaml(const YAML::Node& annotations, std::string_view key, YAML::Node& at, std::string& field) {
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
  void per_component(const YAML::Node& map, const YAML::Node& at, const std::string& field, Definition& def,
                     Each each) {
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
      if (Path path = r_.expression(entry.second.Scalar(), at, Reader::line_of(at), f))
        each(*it->scale, std::move(path));
    }
  }

  // workload-map.io/minimums: {name: {component: minReplicasPath}}. Karta has one minimum per component; a scheduler
  // that counts another way (KubeRay's Volcano integration against KAI's Ray grouper) gets its own, by name.
  void named_minimums(const YAML::Node& annotations, Definition& def) {
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
  void sub_groups(const YAML::Node& annotations, Definition& def) {
    YAML::Node at;
    std::string field;
    const YAML::Node spec = annotation_yaml(annotations, kSubGroupsAnnotation, at, field);
    if (!spec.IsMap()) return;
    for (const auto& entry : spec)
      if (entry.first.Scalar() != "minSubGroups" && entry.first.Scalar() != "minimums")
        r_.error(at, 0, field + "." + entry.first.Scalar(), "unknown field (minSubGroups, minimums)");
    if (const YAML::Node n = spec["minSubGroups"]; n.IsDefined()) {
      if (n.IsScalar() && !n.Scalar().empty())
        def.min_sub_groups = r_.expression(n.Scalar(), at, Reader::line_of(at), field + ".minSubGroups");
      else
        r_.error(at, 0, field + ".minSubGroups", "must be a jq expression");
    }
    if (const YAML::Node m = spec["minimums"]; m.IsDefined())
      per_component(m, at, field + ".minimums", def,
                    [](ScaleDefinition& scale, Path path) { scale.sub_group_min_replicas = std::move(path); });
  }

  void extra_gangs(const YAML::Node& annotations, Definition& def) {
    if (annotations.IsMap())
      def.extra_gangs = r_.path(annotations, kExtraGangsAnnotation.data(), "metadata.annotations");
  }

  void owns_only_components(const YAML::Node& annotations, Definition& def) {
    if (!annotations.IsMap()) return;
    const YAML::Node flag = annotations[std::string(kOwnsOnlyComponentsAnnotation)];
    if (!flag.IsDefined()) return;
    if (!flag.IsScalar() || (flag.Scalar() != "true" && flag.Scalar() != "false"))
      r_.error(flag, 0, "metadata.annotations." + std::string(kOwnsOnlyComponentsAnnotation),
               "must be \"true\" or \"false\"");
    else
      def.owns_only_components = flag.Scalar() == "true";
  }

  void wrapped_objects(const YAML::Node& annotations, Definition& def) {
    if (annotations.IsMap())
      def.wrapped_objects = r_.path(annotations, kWrappedObjectsAnnotation.data(), "metadata.annotations");
  }

  // workload-map.io/references: {name: {kinds: [{group, version, kind, namespaced}], kind: jq, name: jq}}, read
  // together with workload-map.io/resolved-object, which says what the definition's paths read.
  void references(const YAML::Node& annotations, Definition& def) {
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
  std::optional<ReferenceDefinition> reference(const std::string& name, const YAML::Node& spec, const YAML::Node& at,
                                               const std::string& f) {
    if (!spec.IsMap()) {
      r_.error(at, 0, f, "must be a mapping (kinds, kind, name)");
      return std::nullopt;
    }
    ReferenceDefinition r;
    r.name = name;
    for (const auto& key : spec)
      if (key.first.Scalar() != "kinds" && key.first.Scalar() != "kind" && key.first.Scalar() != "name")
        r_.error(at, 0, f + "." + key.first.Scalar(), "unknown field (kinds, kind, name)");
    if (const YAML::Node kinds = spec["kinds"]; kinds.IsDefined() && kinds.IsSequence() && kinds.size() > 0) {
      for (size_t i = 0; i < kinds.size(); ++i)
        if (auto kind = reference_kind(kinds[i], at, f + ".kinds[" + std::to_string(i) + "]"))
          r.kinds.push_back(std::move(*kind));
    } else {
      r_.error(at, 0, f + ".kinds", "must list the kinds the reference may name");
    }
    auto expression = [&](const char* key, bool required) -> Path {
      const YAML::Node n = spec[key];
      if (!n.IsDefined() || n.IsNull()) {
        if (required) r_.error(at, 0, f + "." + key, "is required: a jq expression");
        return nullptr;
      }
      if (!n.IsScalar() || n.Scalar().empty()) {
        r_.error(at, 0, f + "." + key, "must be a jq expression");
        return nullptr;
      }
      return r_.expression(n.Scalar(), at, Reader::line_of(at), f + "." + key);
    };
    r.kind = expression("kind", r.kinds.size() > 1);
    r.object_name = expression("name", true);
    return r;
  }

  std::optional<ReferenceDefinition::Kind> reference_kind(const YAML::Node& k, const YAML::Node& at,
                                                          const std::string& kf) {
    if (!k.IsMap()) {
      r_.error(at, 0, kf, "must give version and kind (and group, and namespaced: false for a cluster-scoped kind)");
      return std::nullopt;
    }
    auto gvk = this->gvk(k, kf, false);
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
  void referenced_pod_edits(const YAML::Node& annotations, Definition& def) {
    YAML::Node at;
    std::string field;
    const YAML::Node spec = annotation_yaml(annotations, kReferencedPodEditsAnnotation, at, field);
    if (!spec.IsMap()) return;
    ReferencedPodEdits edits;
    auto pointer = [&](const char* key, std::string& out) {
      const YAML::Node n = spec[key];
      if (n.IsDefined() && n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] == '/') {
        out = n.Scalar();
        return;
      }
      r_.error(at, 0, field + "." + key, "must be a JSON pointer (/a/b)");
    };
    for (const auto& key : spec) {
      const std::string k = key.first.Scalar();
      if (k != "list" && k != "entry" && k != "instanceList" && k != "instanceKey" && k != "podMetadata")
        r_.error(at, 0, field + "." + k, "unknown field (list, entry, instanceList, instanceKey, podMetadata)");
    }
    pointer("list", edits.list);
    pointer("instanceList", edits.instance_list);
    pointer("podMetadata", edits.pod_metadata);
    if (const YAML::Node k = spec["instanceKey"]; k.IsDefined() && k.IsScalar() && !k.Scalar().empty())
      edits.instance_key = k.Scalar();
    else
      r_.error(at, 0, field + ".instanceKey", "must name the field that holds an instance's id");
    if (const YAML::Node e = spec["entry"]; e.IsDefined() && e.IsMap() && e.size() > 0) {
      for (const auto& kv : e)
        if (kv.second.IsScalar() && !kv.second.Scalar().empty())
          edits.entry.emplace_back(kv.first.Scalar(), kv.second.Scalar());
        else
          r_.error(at, 0, field + ".entry." + kv.first.Scalar(), "must be a string");
    } else {
      r_.error(at, 0, field + ".entry", "must map the fields that tell workload-map's entry apart to their values");
    }
    if (!def.resolved_object)
      r_.error(at, 0, field, "is for pods from referenced objects: it needs " + std::string(kReferencesAnnotation));
    def.referenced_pod_edits = std::move(edits);
  }

  std::optional<TopologyConstraint> topology(const YAML::Node& parent, const std::string& field) {
    YAML::Node node = parent["topology"];
    if (!node.IsDefined()) return std::nullopt;
    const std::string f = field + ".topology";
    if (!r_.map(node, f, {"topologyName", "requiredTopologyLevel", "preferredTopologyLevel"})) return std::nullopt;
    return TopologyConstraint{r_.string(node, "topologyName", f, true).value_or(""),
                              r_.string(node, "requiredTopologyLevel", f, true).value_or(""),
                              r_.string(node, "preferredTopologyLevel", f, true).value_or("")};
  }

  GangPodGroupDefinition gang_pod_group(const YAML::Node& node, const std::string& field, const Definition& def) {
    GangPodGroupDefinition g;
    if (!r_.map(node, field, {"name", "subGroups", "topology"})) return g;
    g.name = r_.string(node, "name", field, true).value_or("");
    g.topology = topology(node, field);
    r_.sequence(node, "subGroups", field, [&](const YAML::Node& n, const std::string& f) {
      if (!r_.map(n, f, {"componentName", "topology"})) return;
      GangPodGroupDefinition::SubGroup sub;
      sub.component = r_.string(n, "componentName", f, true).value_or("");
      if (!sub.component.empty() && !def.component(sub.component))
        r_.error(n["componentName"], 0, f + ".componentName",
                 "sub-group component '" + sub.component + "' is not defined");
      for (const auto& other : g.sub_groups)
        if (other.component == sub.component)
          r_.error(n["componentName"], 0, f + ".componentName",
                   "component '" + sub.component + "' is already a sub-group");
      sub.topology = topology(n, f);
      g.sub_groups.push_back(std::move(sub));
    });
    return g;
  }

  void check_structure(const Definition& def, const YAML::Node& structure, const std::string& field) {
    std::set<std::string> seen;
    for (const auto& c : def.components) {
      if (!c.name.empty() && !seen.insert(c.name).second)
        r_.error(YAML::Node(), c.line, field, "component name '" + c.name + "' is not unique");
    }
    for (const auto& c : def.components) {
      if (c.owner.empty()) continue;
      if (!def.component(c.owner)) {
        r_.error(YAML::Node(), c.line, field + ".childComponents",
                 "child component '" + c.name + "' has ownerRef to non-existing component '" + c.owner + "'");
        continue;
      }
      // Every owner chain must end at the root.
      std::set<std::string> chain{c.name};
      const ComponentDefinition* at = def.component(c.owner);
      while (at && !at->owner.empty()) {
        if (!chain.insert(at->name).second) {
          r_.error(YAML::Node(), c.line, field + ".childComponents",
                   "ownership cycle detected involving component '" + c.name + "'");
          return;  // one report per cycle
        }
        at = def.component(at->owner);
      }
    }
  }

  Reader& r_;
};

}  // namespace

DefinitionLoader::DefinitionLoader() : library_(std::make_shared<expr::JqLibrary>()) {}
DefinitionLoader::~DefinitionLoader() = default;

void DefinitionLoader::load(const std::string& text, const std::string& file) {
  if (auto deep = yaml::yaml_nesting_too_deep(text)) {
    errors_.push_back({file, 0, "", "refused: " + *deep});
    return;
  }
  std::vector<YAML::Node> docs;
  try {
    docs = yaml::load_all_documents(text);
  } catch (const YAML::Exception& e) {
    errors_.push_back({file, yaml::error_line(e), "", "invalid YAML: " + e.msg});
    return;
  }
  for (const auto& doc : docs) {
    if (doc.IsNull()) continue;
    size_t document = documents_++;
    Reader reader(file, errors_, library_, checks_, document);
    size_t before = errors_.size();
    std::optional<Definition> def;
    try {
      def = DefinitionReader(reader).read(doc);
    } catch (const YAML::Exception& e) {
      // yaml-cpp throws when a node is used as what it is not (a list where a mapping belongs).
      errors_.push_back({file, yaml::error_line(e, Reader::line_of(doc)), "", "malformed definition: " + e.msg});
    }
    if (def && errors_.size() == before) definitions_.emplace_back(document, std::move(*def));
  }
}

DefinitionLoad DefinitionLoader::finish() {
  DefinitionLoad out;
  out.errors = std::move(errors_);
  std::set<size_t> broken;
  for (const auto& [index, message] : library_->validate())
    for (const auto& check : checks_)
      if (check.expression == index) {
        yaml::Diagnostic d = check.where;
        d.message = "jq expression does not compile: " + one_line(message);
        out.errors.push_back(std::move(d));
        broken.insert(check.document);
      }
  for (auto& [document, def] : definitions_)
    if (!broken.count(document)) out.definitions.push_back(std::move(def));
  definitions_.clear();
  return out;
}

DefinitionLoad load_definitions(const std::string& text, const std::string& file) {
  DefinitionLoader loader;
  loader.load(text, file);
  return loader.finish();
}

}  // namespace wm::catalog
