#include "mapper/view/workload_view.h"

#include <algorithm>
#include <cmath>

#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "mapper/view/gangs.h"
#include "mapper/view/pod_rules.h"
#include "mapper/view/resources.h"
#include "mapper/view/status.h"

namespace wm::view {

const char* shape_name(PodShape shape) {
  switch (shape) {
    case PodShape::PodTemplate:
      return "podTemplateSpec";
    case PodShape::PodSpec:
      return "podSpec";
    case PodShape::Fragmented:
      return "fragmented";
    case PodShape::Logical:
      return "logical";
  }
  return "";
}

size_t WorkloadView::pod_template_count() const {
  size_t n = 0;
  for (const auto& c : components)
    for (const auto& i : c.instances) n += i.shape != PodShape::Logical;
  return n;
}

namespace {

constexpr size_t kMaxInstances = 10000;

struct Stream {
  json::EvalResult result;
  bool defined = false;
  const json::Value* at(size_t i) const { return i < result.values.size() ? &result.values[i] : nullptr; }
  size_t size() const { return result.values.size(); }
};

class ViewBuilder {
 public:
  ViewBuilder(json::ObjectDocument& doc, WorkloadView& view, const ViewOptions& options)
      : doc_(doc),
        view_(view),
        minimums_(options.minimums),
        inspect_detail_(options.inspect_detail),
        claims_{options.references, options.devices,
                view.namespace_name.empty() ? options.namespace_name : std::string_view(view.namespace_name)} {}

  Stream eval(const catalog::Path& path, const catalog::ComponentDefinition& c, const char* field, bool pointers) {
    Stream s;
    if (!path) return s;
    s.defined = true;
    s.result = path->evaluate(doc_, pointers);
    if (!s.result.ok())
      view_.problems.push_back("component " + c.name + ": " + field + " (" + path->source() + "): " + s.result.error);
    return s;
  }

  static bool present(const json::Value* v) { return v && !v->is_null(); }
  static bool is_object(const json::Value* v) { return v && !v->computed && v->element.is_object(); }

  std::optional<long long> count(const json::Value* v, const catalog::ComponentDefinition& c, const char* field) {
    if (!present(v)) return std::nullopt;
    auto n = v->as_number();
    // Kubernetes' replica counts are int32: a larger number is no count (and 1e308 would not fit a long long).
    if (!n || *n < 0 || !std::isfinite(*n) || *n > 2147483647.0) {
      view_.problems.push_back("component " + c.name + ": " + field + " is not a count: " + v->json());
      return std::nullopt;
    }
    return static_cast<long long>(*n);
  }

  std::optional<std::string> child(const json::Value* v, std::string_view a, std::string_view b = {}) {
    if (!v || !v->has_pointer) return std::nullopt;
    std::string p = json::pointer_child(v->pointer, a);
    if (!b.empty()) json::append_pointer_token(p, b);
    return p;
  }
  static std::optional<std::string> located(const json::Value* v) {
    if (!v || !v->has_pointer) return std::nullopt;
    return v->pointer;
  }

  // e[a][b] (e[a] when b is empty), when it is a string.
  std::optional<std::string> member_string(simdjson::dom::element e, std::string_view a, std::string_view b) {
    simdjson::dom::element out;
    std::string_view s;
    if (e.is_object() && e.get_object().value_unsafe().at_key(a).get(out) == simdjson::SUCCESS &&
        (b.empty() || (out.is_object() && out.get_object().value_unsafe().at_key(b).get(out) == simdjson::SUCCESS)) &&
        out.get_string().get(s) == simdjson::SUCCESS)
      return std::string(s);
    return std::nullopt;
  }

  ComponentView component(const catalog::ComponentDefinition& c) {
    ComponentView out{c.name, c.kind, c.owner, c.bears_pods(), {}};
    const Streams st = streams(c);
    size_t n = st.n;
    // Bounded work per admission: a 3 MiB object can hold a list of a hundred thousand templates.
    if (n > kMaxInstances) {
      view_.problems.push_back("component " + c.name + " has " + std::to_string(n) + " instances; at most " +
                               std::to_string(kMaxInstances) + " are mapped");
      n = kMaxInstances;
    }
    for (size_t i = 0; i < n; ++i) {
      InstanceView inst;
      inst.component = c.name;
      inst.index = i;
      inst.shape = st.shape;
      std::vector<std::string> warnings;
      if (st.shape == PodShape::PodTemplate || st.shape == PodShape::PodSpec) {
        if (!templated_pods(c, st, i, inst, warnings)) continue;  // an optional template that is absent
      } else if (st.shape == PodShape::Fragmented) {
        if (!fragmented_pods(st, i, inst, warnings)) continue;  // e.g. Milvus cluster components in standalone mode
      }
      for (auto& w : warnings) view_.problems.push_back("component " + c.name + ": " + w);
      scale_and_name(c, st, i, n, inst);
      for (auto& u : uncounted_)
        view_.uncounted_devices.push_back({"pod template " + c.name + "/" + inst.id + ": " + u.what, u.resources});
      uncounted_.clear();
      out.instances.push_back(std::move(inst));
    }
    return out;
  }

 private:
  struct Fragment {
    Stream scheduler, labels, annotations, priority, resources, containers, container, claims;
  };
  // A component's paths, each evaluated once over the object; the i-th value of each goes with the i-th instance.
  struct Streams {
    Stream replicas, min_replicas, max_replicas, sub_group_min, ids;
    Stream primary, metadata;  // the pod templates or pod specs, and the specs' metadata
    Fragment f;                // a fragmented pod spec's fields
    PodShape shape = PodShape::Logical;
    size_t n = 0;  // instances
  };

  Streams streams(const catalog::ComponentDefinition& c) {
    Streams st;
    static const catalog::ScaleDefinition kNoScale;
    const catalog::ScaleDefinition& scale = c.scale ? *c.scale : kNoScale;
    st.replicas = eval(scale.replicas, c, "replicasPath", false);
    st.min_replicas = eval(scale.min_replicas_for(minimums_), c, "minReplicasPath", false);
    st.max_replicas = eval(scale.max_replicas, c, "maxReplicasPath", false);
    static const catalog::Path kNotAskedFor;
    st.sub_group_min =
        eval(inspect_detail_ ? scale.sub_group_min_replicas : kNotAskedFor, c, "sub-group minimum", false);
    st.ids = eval(c.instance_id, c, "instanceIdPath", false);
    if (c.spec && c.spec->pod_template_spec) {
      st.shape = PodShape::PodTemplate;
      st.primary = eval(c.spec->pod_template_spec, c, "podTemplateSpecPath", true);
      st.n = st.primary.size();
    } else if (c.spec && c.spec->pod_spec) {
      st.shape = PodShape::PodSpec;
      st.primary = eval(c.spec->pod_spec, c, "podSpecPath", true);
      st.metadata = eval(c.spec->metadata, c, "metadataPath", true);
      st.n = st.primary.size();
    } else if (c.spec && c.spec->fragmented) {
      st.shape = PodShape::Fragmented;
      const catalog::FragmentedPodSpec& p = *c.spec->fragmented;
      Fragment& f = st.f;
      auto field = [&](catalog::Path catalog::FragmentedPodSpec::*member) {
        return eval(p.*member, c, catalog::fragmented_field_name(member), true);
      };
      f.scheduler = field(&catalog::FragmentedPodSpec::scheduler_name);
      f.labels = field(&catalog::FragmentedPodSpec::labels);
      f.annotations = field(&catalog::FragmentedPodSpec::annotations);
      f.priority = field(&catalog::FragmentedPodSpec::priority_class_name);
      f.resources = field(&catalog::FragmentedPodSpec::resources);
      f.containers = field(&catalog::FragmentedPodSpec::containers);
      f.container = field(&catalog::FragmentedPodSpec::container);
      f.claims = field(&catalog::FragmentedPodSpec::resource_claims);
      for (const Stream* s : {&f.scheduler, &f.labels, &f.annotations, &f.priority, &f.resources, &f.containers,
                              &f.container, &st.replicas})
        st.n = std::max(st.n, s->size());
    } else {
      st.n =
          std::max({st.replicas.size(), st.ids.size(), st.replicas.defined || st.ids.defined ? size_t{0} : size_t{1}});
    }
    return st;
  }

  // A pod template's or pod spec's instance: its location, pod fields and one pod's requests; false when absent.
  bool templated_pods(const catalog::ComponentDefinition& c, const Streams& st, size_t i, InstanceView& inst,
                      std::vector<std::string>& warnings) {
    const json::Value* v = st.primary.at(i);
    if (!is_object(v)) return false;  // e.g. RayJob's submitter
    if (!v->has_pointer)
      view_.problems.push_back("component " + c.name + ": the pod template is computed, so it cannot be edited");
    inst.location = v->pointer;
    simdjson::dom::element pod_spec = v->element;
    if (st.shape == PodShape::PodTemplate) {
      simdjson::dom::element spec;
      if (v->element.get_object().value_unsafe().at_key("spec").get(spec) != simdjson::SUCCESS)
        spec = json::ObjectDocument::null_element();
      pod_spec = spec;
      inst.fields = {child(v, "spec", "schedulerName"), child(v, "spec", "priorityClassName"),
                     child(v, "metadata", "labels"), child(v, "metadata", "annotations")};
      inst.scheduler_name = member_string(v->element, "spec", "schedulerName");
    } else {
      const json::Value* m = st.metadata.at(i);
      inst.fields = {child(v, "schedulerName"), child(v, "priorityClassName"),
                     c.spec->metadata ? child(m, "labels") : std::nullopt,
                     c.spec->metadata ? child(m, "annotations") : std::nullopt};
      inst.scheduler_name = member_string(v->element, "schedulerName", {});
    }
    inst.pod_requests = pod_requests(pod_spec, warnings);
    inst.pod_rule_breaches = pod_resource_breaches(pod_spec);
    simdjson::dom::element claims;
    if (!pod_spec.is_object() || pod_spec.get_object().value_unsafe().at_key("resourceClaims").get(claims))
      claims = json::ObjectDocument::null_element();
    add_claims(claims, inst);
    return true;
  }

  // The devices the pod's DRA claims ask for, into its requests (its own claims) or the workload's (shared claims).
  void add_claims(simdjson::dom::element claims, InstanceView& inst) {
    map_implicit_extended_resources(inst.pod_requests, claims_, uncounted_);
    if (claims.is_null()) return;
    PodClaims counted = pod_claims(claims, claims_);
    add_into(inst.pod_requests, counted.per_pod);
    for (auto& [name, devices] : counted.shared) view_.shared_claims.emplace(name, std::move(devices));
    for (auto& u : counted.uncounted) uncounted_.push_back(std::move(u));
  }

  // A fragmented pod spec's instance; false when the component is not deployed. With a replicasPath, the replica
  // count says whether it is (fields may fall back to workload-wide defaults); without one, any mapped field does.
  bool fragmented_pods(const Streams& st, size_t i, InstanceView& inst, std::vector<std::string>& warnings) {
    const Fragment& f = st.f;
    bool deployed = present(st.replicas.at(i));
    if (!st.replicas.defined)
      for (const Stream* s :
           {&f.scheduler, &f.labels, &f.annotations, &f.priority, &f.resources, &f.containers, &f.container})
        deployed = deployed || present(s->at(i));
    if (!deployed) return false;
    inst.fields = {located(f.scheduler.at(i)), located(f.priority.at(i)), located(f.labels.at(i)),
                   located(f.annotations.at(i))};
    if (const json::Value* s = f.scheduler.at(i); present(s)) inst.scheduler_name = s->as_scalar_string();
    if (is_object(f.resources.at(i)))
      add_into(inst.pod_requests, requirements_requests(f.resources.at(i)->element, warnings));
    else if (is_object(f.container.at(i)))
      add_into(inst.pod_requests, container_requests(f.container.at(i)->element, warnings));
    if (present(f.containers.at(i)) && !f.containers.at(i)->computed)
      add_into(inst.pod_requests, containers_requests(f.containers.at(i)->element, warnings));
    add_claims(present(f.claims.at(i)) ? f.claims.at(i)->element : json::ObjectDocument::null_element(), inst);
    // Location: the first mapped field that exists, else the first that could be created.
    const Stream* order[] = {&f.resources, &f.container, &f.containers, &f.labels, &f.annotations, &f.scheduler};
    for (bool must_exist : {true, false})
      for (const Stream* s : order)
        if (const json::Value* v = s->at(i);
            inst.location.empty() && v && v->has_pointer && (!must_exist || present(v)))
          inst.location = v->pointer;
    return true;
  }

  // The instance's counts and id, and its pods and requests from them.
  void scale_and_name(const catalog::ComponentDefinition& c, const Streams& st, size_t i, size_t n,
                      InstanceView& inst) {
    inst.replicas = count(st.replicas.at(i), c, "replicasPath").value_or(1);
    inst.min_replicas = count(st.min_replicas.at(i), c, "minReplicasPath");
    inst.max_replicas = count(st.max_replicas.at(i), c, "maxReplicasPath");
    inst.sub_group_min = count(st.sub_group_min.at(i), c, "sub-group minimum");
    if (const json::Value* id = st.ids.at(i); present(id))
      inst.id = id->as_scalar_string().value_or(id->json());
    else
      inst.id = n > 1 ? c.name + "-" + std::to_string(i) : c.name;
    inst.pods = inst.shape == PodShape::Logical ? 0 : inst.replicas;
    inst.total_requests = scaled(inst.pod_requests, inst.pods);
  }

  json::ObjectDocument& doc_;
  WorkloadView& view_;
  std::string_view minimums_;
  bool inspect_detail_;
  ClaimContext claims_;
  std::vector<UncountedDevices> uncounted_;  // the current instance's, named once its id is known
};

std::string metadata_string(simdjson::dom::element root, std::string_view key) {
  std::string_view s;
  if (root.at_pointer("/metadata").at_key(key).get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return {};
}

// The wrapped object's view, moved into the wrapping one: its components and gangs named `<prefix>.<name>` and its
// locations under the wrapped object's pointer, so that edits land inside the wrapping object.
void graft(WorkloadView& inner, const std::string& prefix, const std::string& at, const std::string& root,
           WorkloadView& view, std::vector<GangGroupView>& gangs) {
  auto renamed = [&](std::string& name) { name = prefix + "." + name; };
  for (auto& c : inner.components) {
    renamed(c.name);
    if (c.owner.empty())
      c.owner = root;
    else
      renamed(c.owner);
    for (auto& i : c.instances) {
      i.component = c.name;
      if (!i.location.empty()) i.location = at + i.location;
      for (auto* field :
           {&i.fields.scheduler_name, &i.fields.priority_class_name, &i.fields.labels, &i.fields.annotations})
        if (*field) **field = at + **field;
    }
    view.components.push_back(std::move(c));
  }
  for (auto& [name, devices] : inner.shared_claims) view.shared_claims.emplace(name, std::move(devices));
  for (auto& u : inner.uncounted_devices) view.uncounted_devices.push_back({prefix + ": " + u.what, u.resources});
  for (auto& g : inner.gangs) {
    renamed(g.name);
    for (auto& m : g.members) renamed(m);
    for (auto& sub : g.sub_groups) renamed(sub.component);
    for (auto& excluded : g.excluded) renamed(excluded.first);
    gangs.push_back(std::move(g));
  }
}

// An AppWrapper holds whole objects: each is read with the definition the catalog has for its own kind, as if it were
// admitted alone, one level deep (a wrapped object that wraps objects is a problem, not read).
void add_wrapped_objects(const catalog::Definition& definition, json::ObjectDocument& doc, const ViewOptions& options,
                         WorkloadView& view, std::vector<GangGroupView>& gangs) {
  json::EvalResult objects = definition.wrapped_objects->evaluate(doc, /*want_pointers=*/true);
  if (!objects.ok()) {
    view.problems.push_back("wrapped objects (" + definition.wrapped_objects->source() + "): " + objects.error);
    return;
  }
  for (size_t n = 0; n < objects.values.size() && n < kMaxInstances; ++n) {
    const json::Value& v = objects.values[n];
    const std::string at = v.has_pointer ? v.pointer : std::string();
    if (v.computed || !v.has_pointer || !v.element.is_object()) {
      view.problems.push_back("wrapped object " + std::to_string(n) + (at.empty() ? "" : " at " + at) +
                              " is not an object of the workload");
      continue;
    }
    const std::string api_version(json::string_member(v.element, "apiVersion")),
        kind(json::string_member(v.element, "kind"));
    const std::string what = "wrapped " + (api_version.empty() ? "object" : api_version) + " " + kind + " at " + at;
    if (!options.catalog) {
      view.problems.push_back(what + ": no catalog to read it with");
      continue;
    }
    const catalog::Catalog::Match match = options.catalog->find(api_version, kind);
    if (!match.definition) {
      view.problems.push_back(
          what + ": " +
          (match.uncovered_version_of.empty()
               ? std::string("no definition reads this kind")
               : "no definition reads this version (definitions read " + match.uncovered_version_of + ")"));
      continue;
    }
    if (match.definition->wrapped_objects) {
      view.problems.push_back(what + ": it wraps objects itself, which is not read");
      continue;
    }
    json::ObjectDocument wrapped(v.element);
    ViewOptions wrapped_options = options;
    wrapped_options.status = false;  // the wrapping object's status is the workload's
    WorkloadView inner = build_view(*match.definition, wrapped, wrapped_options);
    std::string prefix = metadata_string(v.element, "name");
    if (prefix.empty()) prefix = kind + "-" + std::to_string(n);
    for (const auto& w : inner.problems) view.problems.push_back(what + ": " + w);
    graft(inner, prefix, at, definition.root().name, view, gangs);
  }
}

// The object's identity as it states it: group, version and kind, name, namespace, generateName.
void read_identity(const catalog::Definition& definition, simdjson::dom::element root, WorkloadView& view) {
  view.definition = &definition;
  std::string_view s;
  view.gvk = definition.gvk;
  if (root.at_key("apiVersion").get_string().get(s) == simdjson::SUCCESS) {
    const auto [group, version] = json::split_api_version(s);
    view.gvk.group = std::string(group);
    view.gvk.version = std::string(version);
  }
  if (root.at_key("kind").get_string().get(s) == simdjson::SUCCESS) view.gvk.kind = std::string(s);
  view.name = metadata_string(root, "name");
  view.namespace_name = metadata_string(root, "namespace");
  view.generate_name = metadata_string(root, "generateName");
}

void add_totals(WorkloadView& view) {
  for (const auto& c : view.components)
    for (const auto& i : c.instances) {
      view.total_pods += i.pods;
      add_into(view.total_requests, i.total_requests);
    }
  for (const auto& [name, devices] : view.shared_claims) add_into(view.total_requests, devices);
}

// Pods that no template in the object describes (a KServe LLMInferenceService whose pod spec comes from a config)
// can be neither counted nor edited: an empty view would be a silent wrong answer.
void require_pod_templates(const catalog::Definition& definition, WorkloadView& view) {
  const bool bears_pods = std::any_of(definition.components.begin(), definition.components.end(),
                                      [](const catalog::ComponentDefinition& c) { return c.bears_pods(); });
  // Pods held by a referenced object that is not known are reported as such (unresolved_references).
  if ((bears_pods || definition.wrapped_objects) && view.pod_template_count() == 0 && view.problems.empty() &&
      view.unresolved_references.empty())
    view.problems.push_back(
        "no pod template or pod spec where the definition looks: the pods come from elsewhere (defaults, another "
        "object) that workload-map does not read");
}

// Metadata in the object that `where` finds (Definition::child_metadata, ::sub_group_metadata): not in a resolved
// document, whose locations are not the object's.
void locate_metadata(const catalog::Path& where, const char* what, json::ObjectDocument& doc, WorkloadView& view,
                     std::vector<std::string>& into) {
  if (!where || view.resolved) return;
  json::EvalResult r = where->evaluate(doc, /*want_pointers=*/true);
  if (!r.ok()) return view.problems.push_back(std::string(what) + " (" + where->source() + "): " + r.error);
  for (const auto& v : r.values)
    if (v.has_pointer && !v.computed && (v.element.is_null() || v.element.is_object())) into.push_back(v.pointer);
}

}  // namespace

WorkloadView build_view(const catalog::Definition& definition, json::ObjectDocument& doc, const ViewOptions& options) {
  WorkloadView view;
  read_identity(definition, doc.root(), view);
  if (definition.resolved_object) {
    auto resolved = resolve_references(
        definition, doc, options.references,
        view.namespace_name.empty() ? options.namespace_name : std::string_view(view.namespace_name));
    if (!resolved) {
      view.problems.push_back(resolved.error());
      return view;
    }
    view.resolved = std::move(*resolved);
    if (view.resolved) view.unresolved_references = std::move(view.resolved->missing);
  }
  json::ObjectDocument& read = view.document(doc);
  ViewBuilder builder(read, view, options);
  for (const auto& c : definition.components) view.components.push_back(builder.component(c));
  if (const size_t templates = view.pod_template_count(); templates > kMaxPodTemplates) {
    view.problems.push_back(std::to_string(templates) + " pod templates, more than the " +
                            std::to_string(kMaxPodTemplates) + " one review edits");
    return view;
  }
  std::vector<GangGroupView> wrapped_gangs;
  if (definition.wrapped_objects) add_wrapped_objects(definition, read, options, view, wrapped_gangs);
  add_totals(view);
  require_pod_templates(definition, view);
  locate_metadata(definition.child_metadata, "child metadata", doc, view, view.child_metadata);
  if (options.sub_group_metadata)
    locate_metadata(definition.sub_group_metadata, "sub-group metadata", doc, view, view.sub_group_metadata);
  // A wrapping definition's gangs are its wrapped objects', each after its own kind's rule.
  view.gangs = definition.wrapped_objects ? std::move(wrapped_gangs)
                                          : compute_gangs(definition, view.components, options, read, view.problems);
  if (options.status && definition.root().status)
    view.phases = evaluate_status(*definition.root().status, read, view.problems);
  // Pod fields located in the resolved document are not in the object: a patch there would edit nothing, or the
  // wrong field.
  if (view.resolved)
    for (auto& c : view.components)
      for (auto& i : c.instances) i.fields = {};
  return view;
}

}  // namespace wm::view
