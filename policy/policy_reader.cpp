#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>

#include "base/json/json_read.h"
#include "base/yaml/yaml_guard.h"
#include "base/yaml/yaml_reader.h"
#include "policy/embedded_policy.h"
#include "policy/policy.h"

namespace wm::policy {

namespace {

// The policy's reader: YamlReader's fields, and the profiles' edits and the rules' limits.
class PolicyReader : public yaml::YamlReader {
 public:
  using yaml::YamlReader::YamlReader;

  TemplatePairs templates(const YAML::Node& node, const std::string& field, std::vector<std::string>* removed) {
    TemplatePairs out;
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsMap()) {
      error(node, field, "must map keys to values");
      return out;
    }
    for (const auto& e : node) {
      if (e.second.IsNull()) {  // an override taking a key of its profile out
        if (removed)
          removed->push_back(e.first.Scalar());
        else
          error(e.second, field + "." + e.first.Scalar(), "null removes a key, which only an override can do");
        continue;
      }
      auto t = ValueTemplate::parse(e.second.Scalar());
      if (!t)
        error(e.second, field + "." + e.first.Scalar(), t.error());
      else
        out.emplace_back(e.first.Scalar(), std::move(*t));
    }
    return out;
  }

  ProfileEdits edits(const YAML::Node& node, const std::string& field, bool is_override) {
    ProfileEdits e;
    if (node["schedulerName"].IsDefined()) e.scheduler_name = node["schedulerName"].Scalar();
    if (YAML::Node g = node["podSchedulingGroup"]; g.IsDefined()) pod_scheduling_group(g, field, is_override, e);
    if (YAML::Node m = node["minimums"]; m.IsDefined()) {
      if (m.IsScalar() && !m.Scalar().empty())
        e.minimums = m.Scalar();
      else
        error(m, field + ".minimums", "must name the definitions' minimums (their workload-map.io/minimums)");
    }
    auto removed = [&](std::vector<std::string>& list) { return is_override ? &list : nullptr; };
    e.pod_labels = templates(node["podLabels"], field + ".podLabels", removed(e.removed_pod_labels));
    e.pod_annotations =
        templates(node["podAnnotations"], field + ".podAnnotations", removed(e.removed_pod_annotations));
    e.workload_labels =
        templates(node["workloadLabels"], field + ".workloadLabels", removed(e.removed_workload_labels));
    e.workload_annotations =
        templates(node["workloadAnnotations"], field + ".workloadAnnotations", removed(e.removed_workload_annotations));
    e.sub_group_annotations = templates(node["subGroupAnnotations"], field + ".subGroupAnnotations",
                                        removed(e.removed_sub_group_annotations));
    if (YAML::Node pg = node["podGroup"]; pg.IsDefined()) pod_group(pg, field, is_override, e);
    if (YAML::Node w = node["workload"]; w.IsDefined()) workload(w, field, is_override, e);
    e.note_costly_values();
    return e;
  }

  void pod_scheduling_group(YAML::Node g, const std::string& field, bool is_override, ProfileEdits& e) {
    if (g.IsNull() && is_override) {
      e.removes_pod_scheduling_group = true;
    } else if (auto t =
                   g.IsScalar() ? ValueTemplate::parse(g.Scalar()) : Result<ValueTemplate>(Error{"must be a value"})) {
      e.pod_scheduling_group = std::move(*t);
    } else {
      error(g, field + ".podSchedulingGroup",
            g.IsNull() ? "null removes it, which only an override can do" : t.error());
    }
  }

  void pod_group(YAML::Node pg, const std::string& field, bool is_override, ProfileEdits& e) {
    if (pg.IsNull() && is_override) {
      e.removes_pod_group = true;
    } else if (auto t = ObjectTemplate::parse(pg, field + ".podGroup")) {
      e.pod_group = std::make_shared<const ObjectTemplate>(std::move(*t));
    } else {
      error(pg, field + ".podGroup",
            pg.IsNull() ? "null drops the profile's podGroup, which only an override can do" : t.error());
    }
  }

  // By value: a missing key of a non-const node reads as undefined; of a const one, it throws when its line is asked.
  void workload(YAML::Node w, const std::string& field, bool is_override, ProfileEdits& e) {
    if (w.IsNull() && is_override) {
      e.removes_workload = true;
      return;
    }
    if (w.IsNull())
      return error(w, field + ".workload", "null drops the profile's workload, which only an override can do");
    if (!map(w, field + ".workload", {"object", "podGroupTemplate", "maxPodGroupTemplates"})) return;
    auto object = ObjectTemplate::parse(w["object"], field + ".workload.object");
    auto entry = ObjectTemplate::parse(w["podGroupTemplate"], field + ".workload.podGroupTemplate");
    if (!object) error(w["object"].IsDefined() ? w["object"] : w, field + ".workload.object", object.error());
    if (!entry)
      error(w["podGroupTemplate"].IsDefined() ? w["podGroupTemplate"] : w, field + ".workload.podGroupTemplate",
            entry.error());
    const size_t max = max_pod_group_templates(w["maxPodGroupTemplates"], field);
    if (object && entry) e.workload = std::make_shared<const WorkloadTemplate>(WorkloadTemplate{*object, *entry, max});
  }

  size_t max_pod_group_templates(YAML::Node m, const std::string& field) {
    if (!m.IsDefined()) return 0;
    try {
      const long long n = m.as<long long>();
      if (n >= 1) return static_cast<size_t>(n);
    } catch (const YAML::Exception&) {
    }
    error(m, field + ".workload.maxPodGroupTemplates", "must be a whole number, 1 or more");
    return 0;
  }

  // The kind a profile's `queues` or `topologyObjects` names by apiVersion and kind (both, or neither: no kind).
  catalog::GroupVersionKind object_kind(const YAML::Node& node, const std::string& field, const char* what) {
    catalog::GroupVersionKind kind;
    const bool has_api_version = node["apiVersion"].IsDefined(), has_kind = node["kind"].IsDefined();
    if (has_api_version != has_kind) {
      error(node, field, std::string("names the ") + what + " object by apiVersion and kind together");
      return kind;
    }
    if (!has_kind) return kind;
    const std::string api_version = node["apiVersion"].Scalar();
    const auto [group, version] = json::split_api_version(api_version);
    kind.group = group;
    kind.version = version;
    kind.kind = node["kind"].Scalar();
    return kind;
  }

  QueueSource queues(const YAML::Node& node, const std::string& field) {
    QueueSource q;
    if (!node.IsDefined() || !map(node, field, {"apiVersion", "kind", "default"})) return q;
    if (node["default"].IsDefined()) q.default_name = node["default"].Scalar();
    q.object = object_kind(node, field, "queues'");
    return q;
  }

  TopologySource topology_objects(const YAML::Node& node, const std::string& field) {
    TopologySource t;
    if (!node.IsDefined() || !map(node, field, {"apiVersion", "kind", "byName", "levels", "namedBy"})) return t;
    t.object = object_kind(node, field, "topologies'");
    t.by_name = boolean(node["byName"], field + ".byName", false);
    if (YAML::Node named_by = node["namedBy"];
        named_by.IsDefined() && map(named_by, field + ".namedBy", {"apiVersion", "kind", "name"})) {
      t.named_by = object_kind(named_by, field + ".namedBy", "naming");
      t.named_by_pointer = pointer(named_by["name"], field + ".namedBy.name");
      if (t.named_by.kind.empty() || t.named_by_pointer.empty())
        error(named_by, field + ".namedBy",
              "must name the objects that name a topology by apiVersion and kind, and where the name is "
              "(name: /spec/topologyName)");
    }
    if (node["levels"].IsScalar() && node["levels"].Scalar().starts_with("/"))
      t.levels = node["levels"].Scalar();
    else
      error(node["levels"].IsDefined() ? node["levels"] : node, field + ".levels",
            "must be a JSON Pointer to the object's node label keys, * for each item of an array "
            "(/spec/levels/*/nodeLabel)");
    if (t.object.kind.empty()) error(node, field, "must name the topologies' object by apiVersion and kind");
    return t;
  }

  std::string pointer(const YAML::Node& node, const std::string& field) {
    if (!node.IsDefined()) return {};
    if (node.IsScalar() && node.Scalar().starts_with("/")) return node.Scalar();
    error(node, field, "must be a JSON Pointer into the object, * for each item of an array (/status/phase)");
    return {};
  }

  GangStatusSource gang_status(YAML::Node node, const std::string& field) {  // by value: see workload()
    GangStatusSource g;
    if (!node.IsDefined() || !map(node, field, {"apiVersion", "kind", "minMember", "phase", "waiting"})) return g;
    g.object = object_kind(node, field, "gangs' status");
    if (g.object.kind.empty())
      error(node, field, "must name the object that holds a gang's state by apiVersion and kind");
    if (YAML::Node m = node["minMember"]; m.IsSequence())
      for (size_t i = 0; i < m.size(); ++i) g.min_member.push_back(pointer(m[i], field + ".minMember"));
    else if (m.IsDefined())
      g.min_member.push_back(pointer(m, field + ".minMember"));
    g.phase = pointer(node["phase"], field + ".phase");
    YAML::Node waiting = node["waiting"];
    if (waiting.IsDefined() && !waiting.IsSequence()) error(waiting, field + ".waiting", "must be a list");
    for (size_t i = 0; waiting.IsSequence() && i < waiting.size(); ++i) {
      const std::string at = field + ".waiting[" + std::to_string(i) + "]";
      YAML::Node w = waiting[i];
      if (!map(w, at, {"conditions", "type", "status", "messages"})) continue;
      GangStatusSource::Waiting entry{
          pointer(w["conditions"], at + ".conditions"), w["type"].Scalar(), w["status"].Scalar(), {}};
      if (entry.conditions.empty() || entry.type.empty())
        error(w, at, "must name the conditions (a JSON Pointer) and the type of the one that says the gang waits");
      for (const auto& m : strings(w["messages"], at + ".messages")) {
        if (m.starts_with("/"))
          entry.messages.push_back(m);
        else
          error(w["messages"], at + ".messages", "must list JSON Pointers into the condition (/message)");
      }
      g.waiting.push_back(std::move(entry));
    }
    return g;
  }

  Limits limits(const YAML::Node& node, const std::string& field) {
    Limits l;
    if (!node.IsDefined() || node.IsNull()) return l;
    if (!map(node, field,
             {"resources", "maxPods", "requireQueue", "allowedSchedulers", "requireRequestsWithGPUs",
              "forbidSchedulerOverride", "refuseUnmeetableGangs", "refuseInvalidPods", "refuseDroppedTopology"}))
      return l;
    if (YAML::Node r = node["resources"]; r.IsDefined()) {
      if (!r.IsMap()) error(r, field + ".resources", "must map resource names to quantities");
      for (const auto& e : r) {
        auto q = view::Quantity::parse(e.second.Scalar());
        if (!q)
          error(e.second, field + ".resources." + e.first.Scalar(), "is not a quantity");
        else
          l.resources.emplace(e.first.Scalar(), *q);
      }
    }
    if (YAML::Node m = node["maxPods"]; m.IsDefined()) {
      try {
        l.max_pods = m.as<long long>();
      } catch (const YAML::Exception&) {
        error(m, field + ".maxPods", "must be a whole number");
      }
    }
    l.require_queue = boolean(node["requireQueue"], field + ".requireQueue", false);
    l.allowed_schedulers = strings(node["allowedSchedulers"], field + ".allowedSchedulers");
    l.require_requests_with_gpus = boolean(node["requireRequestsWithGPUs"], field + ".requireRequestsWithGPUs", false);
    l.forbid_scheduler_override = boolean(node["forbidSchedulerOverride"], field + ".forbidSchedulerOverride", false);
    l.refuse_unmeetable_gangs = boolean(node["refuseUnmeetableGangs"], field + ".refuseUnmeetableGangs", false);
    l.refuse_invalid_pods = boolean(node["refuseInvalidPods"], field + ".refuseInvalidPods", false);
    l.refuse_dropped_topology = boolean(node["refuseDroppedTopology"], field + ".refuseDroppedTopology", false);
    return l;
  }
};

// The topologies section: name -> {levels: [node label key, ...]}, broadest level first.
std::vector<Topology> read_topologies(PolicyReader& r, const YAML::Node& node) {
  std::vector<Topology> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsMap()) {
    r.error(node, "topologies", "must map names to {levels: [node label keys, broadest first]}");
    return out;
  }
  for (const auto& e : node) {
    const std::string field = "topologies." + e.first.Scalar();
    if (!r.map(e.second, field, {"levels"})) continue;
    Topology t{e.first.Scalar(), r.strings(e.second["levels"], field + ".levels"), PolicyReader::line_of(e.second)};
    if (t.levels.empty()) r.error(e.second, field + ".levels", "must name at least one node label key");
    for (size_t i = 0; i < t.levels.size(); ++i)
      if (std::find(t.levels.begin(), t.levels.begin() + i, t.levels[i]) != t.levels.begin() + i)
        r.error(e.second["levels"], field + ".levels", "names " + t.levels[i] + " twice");
    out.push_back(std::move(t));
  }
  return out;
}

// A rule's topology: {name, required, preferred, subGroups: {required, preferred}}, each level one of the named
// topology's, the preferred no wider than the required (levels go broadest first), a sub-group's level no wider than
// the gang's.
std::optional<catalog::TopologyConstraint> read_rule_topology(PolicyReader& r, const YAML::Node& node,
                                                              const std::string& field,
                                                              const std::vector<Topology>& topologies) {
  if (!r.map(node, field, {"name", "required", "preferred", "subGroups"})) return std::nullopt;
  const YAML::Node sub = node["subGroups"];
  if (sub.IsDefined() && !r.map(sub, field + ".subGroups", {"required", "preferred"})) return std::nullopt;
  // An absent subGroups is an invalid node, which yaml-cpp throws for when indexed.
  auto child = [](const YAML::Node& at, const char* key) {
    return at.IsDefined() && at.IsMap() ? at[key] : YAML::Node();
  };
  auto text_of = [&](const YAML::Node& at, const char* key) {
    const YAML::Node n = child(at, key);
    return n.IsDefined() && n.IsScalar() ? n.Scalar() : std::string();
  };
  auto text = [&](const char* key) { return text_of(node, key); };
  catalog::TopologyConstraint c{text("name"), text("required"), text("preferred"), text_of(sub, "required"),
                                text_of(sub, "preferred")};
  const auto named =
      std::find_if(topologies.begin(), topologies.end(), [&](const Topology& t) { return t.name == c.topology_name; });
  if (named == topologies.end()) {
    std::string known;
    for (const auto& t : topologies) known += (known.empty() ? "" : ", ") + t.name;
    r.error(node, field + ".name",
            "must name one of the policy's topologies (" + (known.empty() ? std::string("it has none") : known) + ")");
    return std::nullopt;
  }
  if (c.required_level.empty() && c.preferred_level.empty() && !c.has_sub_group_levels()) {
    r.error(node, field, "must name a required or a preferred level, for the gang or its subGroups");
    return std::nullopt;
  }
  auto depth = [&](const std::string& level) {
    return std::find(named->levels.begin(), named->levels.end(), level) - named->levels.begin();
  };
  bool ok = true;
  for (const auto& [at, prefix] : {std::pair{node, field}, std::pair{sub, field + ".subGroups"}})
    for (const char* key : {"required", "preferred"}) {
      const std::string level = text_of(at, key);
      if (level.empty() || depth(level) < static_cast<long>(named->levels.size())) continue;
      std::string levels;
      for (const auto& l : named->levels) levels += (levels.empty() ? "" : ", ") + l;
      r.error(at[key], prefix + "." + key, level + " is not a level of topology " + named->name + " (" + levels + ")");
      ok = false;
    }
  // Each level no wider than the one it must sit inside: preferred in required, a sub-group's in the gang's.
  auto inside = [&](const std::string& inner, const std::string& outer, const YAML::Node& at, const std::string& key,
                    const char* outer_name) {
    if (!ok || inner.empty() || outer.empty() || depth(inner) >= depth(outer)) return;
    r.error(at, key, inner + " is wider than the " + outer_name + " " + outer + ": it must be that level or inside it");
    ok = false;
  };
  inside(c.preferred_level, c.required_level, node["preferred"], field + ".preferred", "required");
  inside(c.sub_group_required_level, c.required_level, child(sub, "required"), field + ".subGroups.required",
         "gang's required level");
  inside(c.sub_group_preferred_level, c.sub_group_required_level, child(sub, "preferred"),
         field + ".subGroups.preferred", "sub-groups' required level");
  return ok ? std::optional(c) : std::nullopt;
}

// The devices section: which resource each DRA DeviceClass's devices count as (mapper/view/claims.h).
view::DeviceClassMapping read_devices(PolicyReader& r, const YAML::Node& node) {
  view::DeviceClassMapping out;
  if (!node.IsDefined() || node.IsNull() ||
      !r.map(node, "devices", {"deviceClassMappings", "notCounted", "firstAvailable"}))
    return out;
  auto add = [&](const YAML::Node& at, const std::string& field, const std::string& device_class,
                 const std::string& resource) {
    if (!out.resources.emplace(device_class, resource).second)
      r.error(at, field, "DeviceClass " + device_class + " is named twice in devices");
  };
  const YAML::Node mappings = node["deviceClassMappings"];
  const bool listed = mappings.IsDefined() && mappings.IsSequence();
  if (mappings.IsDefined() && !listed)
    r.error(mappings, "devices.deviceClassMappings", "must be a list of {name, deviceClassNames}");
  for (size_t i = 0; listed && i < mappings.size(); ++i) {
    const std::string field = "devices.deviceClassMappings[" + std::to_string(i) + "]";
    if (!r.map(mappings[i], field, {"name", "deviceClassNames"})) continue;
    const YAML::Node name = mappings[i]["name"];
    const std::string resource = name.IsDefined() && name.IsScalar() ? name.Scalar() : "";
    if (resource.empty()) r.error(mappings[i], field + ".name", "must name the resource the classes count as");
    const auto classes = r.strings(mappings[i]["deviceClassNames"], field + ".deviceClassNames");
    if (classes.empty()) r.error(mappings[i], field + ".deviceClassNames", "must name at least one DeviceClass");
    for (const auto& c : classes) add(mappings[i], field + ".deviceClassNames", c, resource);
  }
  for (const auto& c : r.strings(node["notCounted"], "devices.notCounted"))
    add(node["notCounted"], "devices.notCounted", c, "");
  if (YAML::Node f = node["firstAvailable"]; f.IsDefined()) {
    if (f.IsScalar() && (f.Scalar() == "largest" || f.Scalar() == "refuse"))
      out.first_available_at_largest = f.Scalar() == "largest";
    else
      r.error(f, "devices.firstAvailable", "must be refuse or largest");
  }
  return out;
}

std::unique_ptr<SchedulerProfile> read_profile(PolicyReader& r, const std::string& name, const YAML::Node& node);

// The built-in policy's profiles, read once per process: a policy of rules alone shares them, so that reloading one
// does not compile their overrides' jq (`when`, a libjq compile each, 17 ms; far more under the sanitizers) again.
const std::vector<std::shared_ptr<const SchedulerProfile>>& builtin_profiles() {
  static const std::vector<std::shared_ptr<const SchedulerProfile>> profiles = [] {
    std::vector<std::shared_ptr<const SchedulerProfile>> out;
    yaml::Diagnostics ignored;  // the built-in policy is checked when it loads (Policy::builtin)
    PolicyReader builtin("manifests/base/policy.yaml", ignored);
    for (const auto& e : YAML::Load(std::string(embedded_policy_text()))["schedulerProfiles"])
      if (auto profile = read_profile(builtin, e.first.Scalar(), e.second)) out.push_back(std::move(profile));
    return out;
  }();
  return profiles;
}

// The built-in policy's devices section (manifests/base/policy.yaml), which a policy without one takes: NVIDIA's
// DeviceClasses are counted whoever writes the policy.
const view::DeviceClassMapping& builtin_devices() {
  static const view::DeviceClassMapping devices = [] {
    yaml::Diagnostics ignored;  // the built-in policy is checked when it loads (Policy::builtin)
    PolicyReader r("manifests/base/policy.yaml", ignored);
    return read_devices(r, YAML::Load(std::string(embedded_policy_text()))["devices"]);
  }();
  return devices;
}

// One entry of schedulerProfiles, its overrides merged in once so that admission only picks one; null when its keys
// are wrong (reported).
std::unique_ptr<SchedulerProfile> read_profile(PolicyReader& r, const std::string& name, const YAML::Node& node) {
  const std::string field = "schedulerProfiles." + name;
  if (!r.map(node, field,
             {"schedulerName", "gangRule", "minimums", "queues", "topologyObjects", "gangStatus", "podLabels",
              "podAnnotations", "podSchedulingGroup", "workloadLabels", "workloadAnnotations", "subGroupAnnotations",
              "podGroup", "workload", "overrides"}))
    return nullptr;
  auto profile = std::make_unique<SchedulerProfile>();
  profile->name = name;
  profile->edits = r.edits(node, field, false);
  profile->queues = r.queues(node["queues"], field + ".queues");
  profile->topologies = r.topology_objects(node["topologyObjects"], field + ".topologyObjects");
  profile->gang_status = r.gang_status(node["gangStatus"], field + ".gangStatus");
  if (YAML::Node rule = node["gangRule"]; rule.IsDefined()) {
    auto parsed = rule.IsScalar() ? view::gang_rule_from_name(rule.Scalar()) : std::nullopt;
    if (parsed)
      profile->gang_rule = *parsed;
    else
      r.error(rule, field + ".gangRule", "must be minimum or all-pods");
  }
  YAML::Node overrides = node["overrides"];
  for (size_t i = 0; overrides.IsDefined() && overrides.IsSequence() && i < overrides.size(); ++i) {
    const std::string of = field + ".overrides[" + std::to_string(i) + "]";
    if (!r.map(overrides[i], of,
               {"kinds", "standalone", "when", "whenPodSpecHas", "schedulerName", "minimums", "podLabels",
                "podAnnotations", "podSchedulingGroup", "workloadLabels", "workloadAnnotations", "subGroupAnnotations",
                "podGroup", "workload"}))
      continue;
    SchedulerProfile::Override o{r.strings(overrides[i]["kinds"], of + ".kinds"),
                                 r.boolean(overrides[i]["standalone"], of + ".standalone", false), nullptr,
                                 merged_edits(profile->edits, r.edits(overrides[i], of, true))};
    if (YAML::Node when = overrides[i]["when"]; when.IsDefined()) {
      auto compiled = when.IsScalar() ? expr::PathExpression::compile(when.Scalar())
                                      : Result<expr::PathExpression>(Error{"must be a jq expression"});
      if (compiled) {
        o.when = std::make_shared<const expr::PathExpression>(std::move(*compiled));
      } else {
        r.error(when, of + ".when", compiled.error());
      }
    }
    if (YAML::Node has = overrides[i]["whenPodSpecHas"]; has.IsDefined()) {
      if (!has.IsScalar() || has.Scalar().empty() || has.Scalar()[0] != '/')
        r.error(has, of + ".whenPodSpecHas", "must be a JSON Pointer inside the pod spec, such as /schedulingGroup");
      else if (overrides[i]["minimums"].IsDefined())
        r.error(overrides[i]["minimums"], of + ".minimums",
                "cannot be set beside whenPodSpecHas: the workload is counted before its pod specs are looked at");
      else
        o.pod_spec_has = has.Scalar(), profile->decided_with_view = true;
    }
    profile->overrides.push_back(std::move(o));
  }
  return profile;
}

// One entry of rules, its profile looked up among `policy`'s; nothing when its keys are wrong (reported).
std::optional<Rule> read_rule(PolicyReader& r, const YAML::Node& n, const std::string& field, const Policy& policy) {
  if (!r.map(n, field,
             {"name", "namespaces", "kinds", "profile", "queue", "podLabels", "podAnnotations", "limits", "topology",
              "mutateOnUpdate", "summaryAnnotations", "failurePolicy"}))
    return std::nullopt;
  Rule rule;
  rule.line = PolicyReader::line_of(n);
  rule.name = n["name"].IsDefined() ? n["name"].Scalar() : field;
  rule.namespaces = r.strings(n["namespaces"], field + ".namespaces");
  rule.kinds = r.strings(n["kinds"], field + ".kinds");
  if (rule.kinds.empty()) rule.kinds.push_back("*");
  if (n["profile"].IsDefined()) {
    rule.profile = policy.profile(n["profile"].Scalar());
    if (!rule.profile) r.error(n["profile"], field + ".profile", "no scheduler profile named " + n["profile"].Scalar());
  }
  if (YAML::Node q = n["queue"]; q.IsDefined()) {
    if (r.map(q, field + ".queue", {"value", "fromLabel", "default"})) {
      if (q["value"].IsDefined()) rule.queue_value = q["value"].Scalar();
      if (q["fromLabel"].IsDefined()) rule.queue_label = q["fromLabel"].Scalar();
      if (q["default"].IsDefined()) rule.queue_default = q["default"].Scalar();
    }
  }
  rule.limits = r.limits(n["limits"], field + ".limits");
  // A workload that names no queue goes where a stock install of the profile's scheduler sends it, unless the rule
  // requires it to name one.
  if (!rule.queue_value && !rule.queue_default && !rule.limits.require_queue && rule.profile &&
      !rule.profile->queues.default_name.empty())
    rule.queue_default = rule.profile->queues.default_name;
  rule.pod_labels = r.templates(n["podLabels"], field + ".podLabels", nullptr);
  rule.pod_annotations = r.templates(n["podAnnotations"], field + ".podAnnotations", nullptr);
  for (const TemplatePairs* list : {&rule.pod_labels, &rule.pod_annotations})
    for (const auto& [key, t] : *list) {
      rule.writes_priority_class = rule.writes_priority_class || t.uses("priorityClassName");
      rule.writes_task_groups = rule.writes_task_groups || t.uses("taskGroups");
      rule.reads_pod_scheduling_group = rule.reads_pod_scheduling_group || t.uses("podSchedulingGroup");
    }
  if (YAML::Node t = n["topology"]; t.IsDefined())
    rule.topology = read_rule_topology(r, t, field + ".topology", policy.topologies());
  rule.mutate_on_update = r.boolean(n["mutateOnUpdate"], field + ".mutateOnUpdate", false);
  rule.summary_annotations = r.boolean(n["summaryAnnotations"], field + ".summaryAnnotations", true);
  if (YAML::Node f = n["failurePolicy"]; f.IsDefined()) {
    if (f.Scalar() == "Fail")
      rule.failure_policy = FailurePolicy::Fail;
    else if (f.Scalar() != "Ignore")
      r.error(f, field + ".failurePolicy", "must be Fail or Ignore");
  }
  return rule;
}

}  // namespace

std::optional<Policy> Policy::load(const std::string& text, const std::string& file, yaml::Diagnostics& errors) {
  try {
    return load_checked(text, file, errors);
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws when a node is used as what it is not (a list where a mapping belongs).
    errors.push_back({file, yaml::error_line(e), "", "malformed policy: " + e.msg});
    return std::nullopt;
  }
}

std::optional<Policy> Policy::load_checked(const std::string& text, const std::string& file,
                                           yaml::Diagnostics& errors) {
  YAML::Node root;
  if (auto deep = yaml::yaml_nesting_too_deep(text)) {
    errors.push_back({file, 0, "", "refused: " + *deep});
    return std::nullopt;
  }
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    errors.push_back({file, yaml::error_line(e), "", "invalid YAML: " + e.msg});
    return std::nullopt;
  }
  size_t before = errors.size();
  PolicyReader r(file, errors);
  Policy policy;
  if (!r.map(root, "", {"apiVersion", "kind", "schedulerProfiles", "devices", "topologies", "rules"}))
    return std::nullopt;
  if (!root["apiVersion"].IsDefined() || root["apiVersion"].Scalar() != "workload-map.io/v1alpha1" ||
      !root["kind"].IsDefined() || root["kind"].Scalar() != "Policy")
    r.error(root, "apiVersion", "a policy is apiVersion workload-map.io/v1alpha1, kind Policy");

  YAML::Node profiles = root["schedulerProfiles"];
  if (profiles.IsDefined() && !profiles.IsMap()) r.error(profiles, "schedulerProfiles", "must map names to profiles");
  if (profiles.IsDefined()) {
    for (const auto& e : profiles)
      if (auto profile = read_profile(r, e.first.Scalar(), e.second)) policy.profiles_.push_back(std::move(profile));
  } else {  // as for devices: a policy of rules alone runs the built-in profiles (checked when it loads)
    policy.profiles_ = builtin_profiles();
  }

  policy.devices_ = root["devices"].IsDefined() ? read_devices(r, root["devices"]) : builtin_devices();
  policy.topologies_ = read_topologies(r, root["topologies"]);

  YAML::Node rules = root["rules"];
  bool have_rules = rules.IsDefined() && rules.IsSequence();
  if (!have_rules) r.error(root, "rules", "must be a list of rules");
  for (size_t i = 0; have_rules && i < rules.size(); ++i)
    if (auto rule = read_rule(r, rules[i], "rules[" + std::to_string(i) + "]", policy))
      policy.rules_.push_back(std::move(*rule));
  if (errors.size() != before) return std::nullopt;
  return policy;
}

}  // namespace wm::policy
