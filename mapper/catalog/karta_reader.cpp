#include "mapper/catalog/karta_reader.h"

#include <iterator>
#include <set>
#include <vector>

namespace wm::catalog {

namespace {

const std::string kStructure = "spec.structureDefinition";

// The states a statusMappings may map, in the order the view tries them.
const char* const kStates[] = {"initializing", "running",   "completed",  "failed",
                               "degraded",     "suspended", "suspending", "resuming"};

class KartaReader {
 public:
  explicit KartaReader(DefinitionReader& r) : r_(r) {}

  std::optional<Definition> read(const YAML::Node& doc);
  void check_structure(const Definition& def);

 private:
  bool envelope(const YAML::Node& doc);
  bool structure(const YAML::Node& spec, Definition& def);
  ComponentDefinition component(const YAML::Node& node, const std::string& field, bool is_root);
  void identity(const YAML::Node& node, const std::string& field, bool is_root, ComponentDefinition& c);
  std::optional<SpecDefinition> spec(const YAML::Node& node, const std::string& field, const std::string& name);
  std::optional<FragmentedPodSpec> fragmented(const YAML::Node& node, const std::string& field);
  std::optional<ScaleDefinition> scale(const YAML::Node& node, const std::string& field);
  void instances(const YAML::Node& node, const std::string& field, ComponentDefinition& c);
  bool pod_selector(const YAML::Node& node, const std::string& field, ComponentDefinition& c);
  void type_selector(const YAML::Node& node, const std::string& field);
  void suspend(const YAML::Node& node, const std::string& field);
  std::optional<StatusDefinition> status(const YAML::Node& node, const std::string& field);
  void conditions(const YAML::Node& node, const std::string& field, StatusDefinition& s);
  std::optional<StatusMatcher> status_matcher(const YAML::Node& node, const std::string& field,
                                              const StatusDefinition& s);

  DefinitionReader& r_;
};

std::optional<Definition> KartaReader::read(const YAML::Node& doc) {
  if (!envelope(doc)) return std::nullopt;
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
  if (!structure(spec, def)) return std::nullopt;
  return def;
}

// The document's own fields: a mapping, apiVersion and kind.
bool KartaReader::envelope(const YAML::Node& doc) {
  // `status` is what `kubectl get karta -o yaml` returns beside the spec (the upstream operator's conditions):
  // accepted and not read, so that a Karta exported from a cluster loads unchanged.
  if (!r_.map(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"})) return false;
  if (YAML::Node status = doc["status"]; status.IsDefined() && !status.IsNull() && !status.IsMap())
    r_.error(status, 0, "status", "must be an object");
  auto api = r_.string(doc, "apiVersion", "", true);
  auto kind = r_.string(doc, "kind", "", true);
  if (api && *api != "run.ai/v1alpha1") r_.error(doc["apiVersion"], 0, "apiVersion", "must be run.ai/v1alpha1");
  if (kind && *kind != "Karta") r_.error(doc["kind"], 0, "kind", "must be Karta");
  return true;
}

// spec.structureDefinition: the root component, the children, the additional child kinds.
bool KartaReader::structure(const YAML::Node& spec, Definition& def) {
  YAML::Node structure = spec["structureDefinition"];
  if (!structure.IsDefined()) {
    r_.error(spec, DefinitionReader::line_of(spec), kStructure, "is required");
    return false;
  }
  if (!r_.map(structure, kStructure, {"rootComponent", "childComponents", "additionalChildKinds"})) return false;
  YAML::Node root = structure["rootComponent"];
  if (!root.IsDefined()) {
    r_.error(structure, DefinitionReader::line_of(structure), kStructure + ".rootComponent", "is required");
    return false;
  }
  def.components.push_back(component(root, kStructure + ".rootComponent", true));
  r_.sequence(structure, "childComponents", kStructure,
              [&](const YAML::Node& n, const std::string& f) { def.components.push_back(component(n, f, false)); });
  r_.sequence(structure, "additionalChildKinds", kStructure, [&](const YAML::Node& n, const std::string& f) {
    if (!r_.map(n, f, {"group", "version", "kind"})) return;
    if (auto child = read_gvk(r_, n, f, false)) def.child_kinds.push_back(std::move(*child));
  });
  if (def.components.front().kind) def.gvk = *def.components.front().kind;
  def.versions.push_back(def.gvk.version);
  return true;
}

ComponentDefinition KartaReader::component(const YAML::Node& node, const std::string& field, bool is_root) {
  ComponentDefinition c;
  c.line = DefinitionReader::line_of(node);
  if (!r_.map(node, field,
              {"name", "kind", "ownerRef", "specDefinition", "scaleDefinition", "instanceIdPath", "podSelector",
               "statusDefinition", "suspendDefinition"}))
    return c;
  identity(node, field, is_root, c);
  if (node["specDefinition"].IsDefined()) c.spec = spec(node["specDefinition"], field + ".specDefinition", c.name);
  if (node["scaleDefinition"].IsDefined()) c.scale = scale(node["scaleDefinition"], field + ".scaleDefinition");
  instances(node, field, c);
  if (node["statusDefinition"].IsDefined()) c.status = status(node["statusDefinition"], field + ".statusDefinition");
  if (is_root && !c.status)
    r_.error(node, c.line, field + ".statusDefinition", "the root component must have a statusDefinition");
  if (node["suspendDefinition"].IsDefined()) suspend(node["suspendDefinition"], field + ".suspendDefinition");
  return c;
}

// A component's name, kind and ownerRef: the root has a kind and no owner, a child an owner.
void KartaReader::identity(const YAML::Node& node, const std::string& field, bool is_root, ComponentDefinition& c) {
  c.name = r_.string(node, "name", field, false).value_or("");
  if (c.name.empty()) r_.error(node, c.line, field + ".name", "component name is empty");
  if (node["kind"].IsDefined()) {
    const std::string kf = field + ".kind";
    if (r_.map(node["kind"], kf, {"group", "version", "kind"})) c.kind = read_gvk(r_, node["kind"], kf, true);
  } else if (is_root) {
    r_.error(node, c.line, field + ".kind", "the root component must name its group, version and kind");
  }
  auto owner = r_.string(node, "ownerRef", field, false);
  if (is_root && owner)
    r_.error(node["ownerRef"], c.line, field + ".ownerRef", "the root component cannot have an owner");
  if (!is_root && (!owner || owner->empty()))
    r_.error(node, c.line, field + ".ownerRef", "child component '" + c.name + "' has no ownerRef");
  c.owner = owner.value_or("");
}

std::optional<SpecDefinition> KartaReader::spec(const YAML::Node& node, const std::string& field,
                                                const std::string& name) {
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
    r_.error(node, DefinitionReader::line_of(node), field,
             "component '" + name + "' has both " + set[0] + " and " + set[1] + " (exactly one is allowed)");
  if (set.empty())
    r_.error(node, DefinitionReader::line_of(node), field,
             "needs one of podTemplateSpecPath, podSpecPath or fragmentedPodSpecDefinition");
  if (node["metadataPath"].IsDefined() && !node["podSpecPath"].IsDefined())
    r_.error(node["metadataPath"], DefinitionReader::line_of(node), field + ".metadataPath",
             "goes with podSpecPath only");
  if (YAML::Node f = node["fragmentedPodSpecDefinition"]; f.IsDefined())
    s.fragmented = fragmented(f, field + ".fragmentedPodSpecDefinition");
  return s;
}

std::optional<FragmentedPodSpec> KartaReader::fragmented(const YAML::Node& node, const std::string& field) {
  std::vector<const char*> names;
  for (const auto& f : kFragmentedFields) names.push_back(f.name);
  if (!r_.map(node, field, names)) return std::nullopt;
  FragmentedPodSpec p;
  for (const auto& f : kFragmentedFields) p.*f.member = r_.path(node, f.name, field);
  if (node.size() == 0) r_.error(node, DefinitionReader::line_of(node), field, "maps no pod field");
  return p;
}

std::optional<ScaleDefinition> KartaReader::scale(const YAML::Node& node, const std::string& field) {
  if (!r_.map(node, field, {"replicasPath", "minReplicasPath", "maxReplicasPath"})) return std::nullopt;
  return ScaleDefinition{r_.path(node, "replicasPath", field), r_.path(node, "minReplicasPath", field),
                         r_.path(node, "maxReplicasPath", field)};
}

// instanceIdPath, and the podSelector's componentInstanceSelector that must go with it.
void KartaReader::instances(const YAML::Node& node, const std::string& field, ComponentDefinition& c) {
  c.instance_id = r_.path(node, "instanceIdPath", field);
  bool instance_selector = pod_selector(node["podSelector"], field + ".podSelector", c);
  if (c.instance_id && !instance_selector)
    r_.error(node["instanceIdPath"], c.line, field + ".instanceIdPath",
             "component '" + c.name + "' has an instanceIdPath but its podSelector has no componentInstanceSelector");
  if (!c.instance_id && instance_selector)
    r_.error(node["podSelector"], c.line, field + ".podSelector.componentInstanceSelector",
             "component '" + c.name + "' has a componentInstanceSelector but no instanceIdPath");
}

// Pod selectors match running pods, which admission never sees; they are checked, not used.
bool KartaReader::pod_selector(const YAML::Node& node, const std::string& field, ComponentDefinition& c) {
  if (!node.IsDefined()) return false;
  if (!r_.map(node, field, {"componentTypeSelector", "componentInstanceSelector", "replicaSelector"})) return false;
  if (YAML::Node t = node["componentTypeSelector"]; t.IsDefined()) type_selector(t, field + ".componentTypeSelector");
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

// Upstream's newer form selects by labels (matchLabels, all must match) instead of, or beside, a keyPath.
void KartaReader::type_selector(const YAML::Node& node, const std::string& field) {
  if (!r_.map(node, field, {"keyPath", "value", "matchLabels"})) return;
  const YAML::Node labels = node["matchLabels"];
  r_.path(node, "keyPath", field, !labels.IsDefined());
  r_.string(node, "value", field, false);
  if (!labels.IsDefined()) return;
  if (!labels.IsMap() || labels.size() == 0) {
    r_.error(labels, 0, field + ".matchLabels", "must map label names to values");
    return;
  }
  for (const auto& label : labels)
    if (!label.second.IsScalar())
      r_.error(label.second, 0, field + ".matchLabels." + label.first.Scalar(), "must be a string");
}

// Suspend/resume actions write the object; admission never does, so they are checked, not used.
void KartaReader::suspend(const YAML::Node& node, const std::string& field) {
  if (!r_.map(node, field, {"suspendActions", "resumeActions"})) return;
  for (const char* key : {"suspendActions", "resumeActions"})
    r_.sequence(node, key, field, [&](const YAML::Node& n, const std::string& f) {
      if (r_.map(n, f, {"path", "value"})) {
        r_.path(n, "path", f, true);
        r_.string(n, "value", f, true);
      }
    });
}

std::optional<StatusDefinition> KartaReader::status(const YAML::Node& node, const std::string& field) {
  if (!r_.map(node, field, {"phaseDefinition", "conditionsDefinition", "statusMappings"})) return std::nullopt;
  StatusDefinition s;
  if (YAML::Node p = node["phaseDefinition"]; p.IsDefined() && r_.map(p, field + ".phaseDefinition", {"path"}))
    s.phase = r_.path(p, "path", field + ".phaseDefinition", true);
  if (YAML::Node c = node["conditionsDefinition"]; c.IsDefined()) conditions(c, field + ".conditionsDefinition", s);
  YAML::Node m = node["statusMappings"];
  const std::string mf = field + ".statusMappings";
  if (!m.IsDefined()) {
    r_.error(node, DefinitionReader::line_of(node), mf, "is required");
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

void KartaReader::conditions(const YAML::Node& node, const std::string& field, StatusDefinition& s) {
  if (!r_.map(node, field, {"path", "typeFieldName", "statusFieldName", "messageFieldName", "reasonFieldName"})) return;
  s.conditions = r_.path(node, "path", field, true);
  s.type_field = r_.string(node, "typeFieldName", field, false).value_or("type");
  s.status_field = r_.string(node, "statusFieldName", field, false).value_or("status");
  r_.string(node, "messageFieldName", field, false);  // Karta's schema has it; phases are read without messages
  s.reason_field = r_.string(node, "reasonFieldName", field, false).value_or("reason");
}

std::optional<StatusMatcher> KartaReader::status_matcher(const YAML::Node& node, const std::string& field,
                                                         const StatusDefinition& s) {
  if (!r_.map(node, field, {"byPhase", "byConditions", "byExpression"})) return std::nullopt;
  StatusMatcher m;
  m.by_phase = r_.string(node, "byPhase", field, false);
  if (m.by_phase && !s.phase)
    r_.error(node["byPhase"], 0, field + ".byPhase", "byPhase needs a phaseDefinition in this statusDefinition");
  r_.sequence(node, "byConditions", field, [&](const YAML::Node& n, const std::string& f) {
    if (!r_.map(n, f, {"type", "status", "reason"})) return;
    m.by_conditions.push_back({r_.string(n, "type", f, true).value_or(""), r_.string(n, "status", f, true).value_or(""),
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
    r_.error(node, DefinitionReader::line_of(node), field, "a matcher needs byPhase, byConditions or byExpression");
  return m;
}

// Component names are unique, and every owner chain ends at the root.
void KartaReader::check_structure(const Definition& def) {
  std::set<std::string> seen;
  for (const auto& c : def.components) {
    if (!c.name.empty() && !seen.insert(c.name).second)
      r_.error(YAML::Node(), c.line, kStructure, "component name '" + c.name + "' is not unique");
  }
  for (const auto& c : def.components) {
    if (c.owner.empty()) continue;
    if (!def.component(c.owner)) {
      r_.error(YAML::Node(), c.line, kStructure + ".childComponents",
               "child component '" + c.name + "' has ownerRef to non-existing component '" + c.owner + "'");
      continue;
    }
    std::set<std::string> chain{c.name};
    const ComponentDefinition* at = def.component(c.owner);
    while (at && !at->owner.empty()) {
      if (!chain.insert(at->name).second) {
        r_.error(YAML::Node(), c.line, kStructure + ".childComponents",
                 "ownership cycle detected involving component '" + c.name + "'");
        return;  // one report per cycle
      }
      at = def.component(at->owner);
    }
  }
}

}  // namespace

std::optional<Definition> read_karta_structure(DefinitionReader& r, const YAML::Node& doc) {
  return KartaReader(r).read(doc);
}

void check_karta_structure(DefinitionReader& r, const Definition& def) { KartaReader(r).check_structure(def); }

std::optional<GroupVersionKind> read_gvk(yaml::YamlReader& r, const YAML::Node& node, const std::string& field,
                                         bool group_required) {
  GroupVersionKind out;
  auto group = r.string(node, "group", field, false);
  auto version = r.string(node, "version", field, true);
  auto kind = r.string(node, "kind", field, true);
  if (!version || !kind) return std::nullopt;
  if (!group && group_required && *kind != "Pod")
    r.error(node, yaml::YamlReader::line_of(node), field + ".group",
            "is required (only the core Pod kind may omit it)");
  out.group = group.value_or("");
  out.version = *version;
  out.kind = *kind;
  return out;
}

}  // namespace wm::catalog
