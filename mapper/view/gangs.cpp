#include "mapper/view/gangs.h"

#include <algorithm>

namespace wm::view {

const char* gang_rule_name(GangRule rule) { return rule == GangRule::AllPods ? "all-pods" : "minimum"; }

std::optional<GangRule> gang_rule_from_name(std::string_view name) {
  if (name == "minimum") return GangRule::Minimum;
  if (name == "all-pods") return GangRule::AllPods;
  return std::nullopt;
}

namespace {

// An instance's share of a gang. Under Minimum, a minReplicasPath value (in pods, like replicasPath) is the
// least the workload can run with: 0 means the component may start with none, like an autoscaled Ray worker
// group (KAI's Ray grouper counts minReplicas x numOfHosts there). It is taken as the scheduler takes it, even
// past the pods the workload starts: KAI copies a PyTorchJob's minAvailable unchecked (pytorch_grouper.go), and
// such a gang never starts. `GangGroupView::pods` beside it tells (see unmeetable_gangs).
long long instance_minimum(const InstanceView& instance, GangRule rule) {
  if (instance.shape == PodShape::Logical) return 0;
  if (rule == GangRule::Minimum && instance.min_replicas) return std::max(*instance.min_replicas, 0LL);
  return instance.pods;
}

// The pods one copy of the gang starts: those of its members' pod templates that its filters keep.
long long gang_pods(const GangGroupView& gang, const std::vector<ComponentView>& components) {
  long long pods = 0;
  for (const auto& c : components)
    for (const auto& i : c.instances)
      if (i.shape != PodShape::Logical && gang.counts(c.name, i.id)) pods += i.pods;
  return pods / std::max(gang.copies, 1LL);
}

// One pod template as the pod it makes, for filters written against pods.
std::optional<simdjson::dom::element> pod_of(const InstanceView& i, json::ObjectDocument& doc) {
  simdjson::dom::element at;
  if (i.location.empty() || doc.root().at_pointer(i.location).get(at) != simdjson::SUCCESS) return std::nullopt;
  if (i.shape == PodShape::PodTemplate) return at;
  if (i.shape != PodShape::PodSpec) return std::nullopt;  // fragmented: no single pod to show
  std::string pod = R"({"spec":)" + simdjson::to_string(at);
  simdjson::dom::element labels, annotations;
  std::string metadata;
  if (i.fields.labels && doc.root().at_pointer(*i.fields.labels).get(labels) == simdjson::SUCCESS)
    metadata += R"("labels":)" + std::string(simdjson::to_string(labels));
  if (i.fields.annotations && doc.root().at_pointer(*i.fields.annotations).get(annotations) == simdjson::SUCCESS)
    metadata += (metadata.empty() ? "" : ",") + std::string(R"("annotations":)") + simdjson::to_string(annotations);
  return doc.adopt(pod + R"(,"metadata":{)" + metadata + "}}");
}

class GangBuilder {
 public:
  GangBuilder(const catalog::Definition& def, const std::vector<ComponentView>& components, const ViewOptions& options,
              json::ObjectDocument& doc, std::vector<std::string>& problems)
      : def_(def),
        components_(components),
        rule_(options.gang_rule),
        inspect_detail_(options.inspect_detail),
        doc_(doc),
        problems_(problems) {}

  // The minimum of a component and every component under it; `members` collects their names (and stops cycles).
  long long subtree(const std::string& name, std::vector<std::string>& members) const {
    if (std::find(members.begin(), members.end(), name) != members.end()) return 0;
    members.push_back(name);
    long long total = 0;
    for (const auto& c : components_) {
      if (c.name == name)
        for (const auto& i : c.instances) total += instance_minimum(i, rule_);
      if (c.owner == name) total += subtree(c.name, members);
    }
    return total;
  }

  const ComponentView* view_of(const std::string& name) const {
    for (const auto& c : components_)
      if (c.name == name) return &c;
    return nullptr;
  }

  bool has_children(const std::string& name) const {
    return std::any_of(components_.begin(), components_.end(), [&](const auto& c) { return c.owner == name; });
  }

  // Upstream's podGroup: one gang; each listed component a sub-group with its own minimum. A component with
  // several instances told apart by an instanceIdPath (JobSet's replicated jobs, Ray's worker groups) gives a
  // sub-group per instance, as KAI's JobSet and Ray groupers make one per replicated job and per worker group.
  GangGroupView newer(const catalog::GangPodGroupDefinition& pg) const {
    GangGroupView g;
    g.name = pg.name;
    g.topology = pg.topology;
    if (pg.sub_groups.empty()) {
      g.min_member = subtree(def_.root().name, g.members);
      return g;
    }
    for (const auto& sub : pg.sub_groups) {
      const catalog::ComponentDefinition* c = def_.component(sub.component);
      const ComponentView* view = view_of(sub.component);
      if (!c || !view) continue;
      if (c->instance_id && !has_children(c->name)) {
        if (std::find(g.members.begin(), g.members.end(), c->name) == g.members.end()) g.members.push_back(c->name);
        for (const auto& i : view->instances) {  // a group that starts no pods is no sub-group (KAI's Ray grouper)
          if (i.pods == 0) continue;
          const long long first = instance_minimum(i, rule_);
          g.min_member += first;
          // Once it starts, a sub-group needs its own minimum, which may be more than what must start first.
          const long long own = rule_ == GangRule::Minimum && i.sub_group_min ? *i.sub_group_min : first;
          g.sub_groups.push_back({i.id, c->name, own, sub.topology});
        }
      } else {
        const long long first = subtree(c->name, g.members);
        g.min_member += first;
        g.sub_groups.push_back({c->name, c->name, first, sub.topology});
      }
    }
    if (def_.min_sub_groups && rule_ == GangRule::Minimum && inspect_detail_)
      g.min_sub_groups = min_sub_groups(def_.min_sub_groups, g.sub_groups.size());
    return g;
  }

  // minSubGroups over the object: the smallest number it yields, at most the sub-groups there are; none when it
  // yields nothing (every sub-group). A value that is no count is a warning (the object is not understood).
  std::optional<long long> min_sub_groups(const catalog::Path& path, size_t sub_groups) const {
    const json::EvalResult r = path->evaluate(doc_, false);
    std::optional<long long> least;
    for (const auto& v : r.values) {
      const std::optional<double> n = v.as_number();
      if (!n || *n < 0 || *n > 2147483647.0 || *n != static_cast<double>(static_cast<long long>(*n))) {
        problems_.push_back("minSubGroups is not a count: " + v.json());
        return std::nullopt;
      }
      least = std::min(least.value_or(*n), static_cast<long long>(*n));
    }
    if (!r.ok()) problems_.push_back("minSubGroups: " + r.error);
    if (!least || !r.ok()) return std::nullopt;
    return std::min<long long>(*least, static_cast<long long>(sub_groups));
  }

  // Gangs an operator makes on its own (Grove's scaled PodGangs): {name, minMember, pods, copies} per kind of gang,
  // each copy a gang "<name>-<i>", at most kMaxExtraGangs in all. A value of another shape is a warning.
  void add_extra_gangs(const catalog::Path& path, std::vector<GangGroupView>& gangs) const {
    constexpr long long kMaxExtraGangs = 1000;
    const json::EvalResult r = path->evaluate(doc_, false);
    if (!r.ok()) problems_.push_back("extra gangs: " + r.error);
    long long added = 0;
    for (const auto& v : r.values) {
      simdjson::dom::element e = v.element;
      std::string_view name;
      int64_t min_member = 0, pods = 0, copies = 0;
      if (v.computed || !e.is_object() || e["name"].get_string().get(name) ||
          e["minMember"].get_int64().get(min_member) || e["pods"].get_int64().get(pods) ||
          e["copies"].get_int64().get(copies) || min_member < 0 || pods < 0 || copies < 0) {
        problems_.push_back("extra gangs: not {name, minMember, pods, copies}: " + v.json());
        continue;
      }
      for (int64_t i = 0; i < copies && added < kMaxExtraGangs; ++i, ++added) {
        GangGroupView g;
        g.name = std::string(name) + "-" + std::to_string(i);
        g.min_member = min_member;
        g.pods = pods;
        g.made_by_operator = true;
        gangs.push_back(std::move(g));
      }
    }
  }

  // The older podGroups: a gang per group, or per replica when a member groups by its replica key. A replicated
  // member with an instance per kind of replica (a DisaggregatedSet's roles, each with its own group size) repeats
  // the group per instance, "<group>-<instance>", each with its own replicas and size.
  void older(const catalog::PodGroupDefinition& group, std::vector<GangGroupView>& gangs) {
    const ComponentView* per_instance = replicated_with_instances(group);
    if (!per_instance) return gangs.push_back(older(group, nullptr));
    for (const auto& i : per_instance->instances) gangs.push_back(older(group, &i.id));
  }

  // One gang of the group; with `instance`, only the instances of that id in its members' components.
  GangGroupView older(const catalog::PodGroupDefinition& group, const std::string* instance) {
    GangGroupView g;
    g.name = instance ? group.name + "-" + *instance : group.name;
    for (const auto& m : group.members) {
      const size_t first_member = g.members.size();
      g.min_member += subtree(m.component, g.members);
      if (instance)
        for (size_t i = first_member; i < g.members.size(); ++i) leave_out_other_instances(g.members[i], *instance, g);
      if (!m.filter_paths.empty())
        for (size_t i = first_member; i < g.members.size(); ++i) leave_out_filtered(m, g.members[i], g);
      if (g.replica_key_path.empty()) g.replica_key_path = replica_key_read_by(m);
      if (g.copies == 1 && !g.replica_key_path.empty()) g.copies = replicas_of(m.component, instance);
    }
    if (g.copies > 1) g.min_member /= g.copies;
    return g;
  }

  // The one member's component that is repeated per replica and has an instanceIdPath, when the group has one.
  const ComponentView* replicated_with_instances(const catalog::PodGroupDefinition& group) const {
    for (const auto& m : group.members) {
      const catalog::ComponentDefinition* c = def_.component(m.component);
      if (c && c->instance_id && !replica_key_read_by(m).empty()) return view_of(m.component);
    }
    return nullptr;
  }

  void leave_out_other_instances(const std::string& component, const std::string& instance, GangGroupView& g) {
    const ComponentView* view = view_of(component);
    if (!view) return;
    for (const auto& i : view->instances) {
      if (i.id == instance || i.shape == PodShape::Logical) continue;
      g.min_member -= instance_minimum(i, rule_);
      g.excluded.emplace_back(component, i.id);
    }
  }

  // Takes the pod templates of `component` that fail one of the member's filters out of the gang.
  void leave_out_filtered(const catalog::PodGroupMember& m, const std::string& component, GangGroupView& g) {
    const ComponentView* view = view_of(component);
    if (!view) return;
    for (const auto& i : view->instances) {
      if (i.shape == PodShape::Logical) continue;
      auto pod = pod_of(i, doc_);
      if (!pod) continue;
      json::ObjectDocument pod_doc(*pod);
      bool passes = true;
      for (size_t f = 0; f < m.filter_paths.size() && passes; ++f) {
        json::EvalResult r = m.filter_paths[f]->evaluate(pod_doc, false);
        if (!r.ok()) {
          problems_.push_back("pod group member " + m.component + ": filter (" + m.filters[f] + ") on pod template " +
                              component + "/" + i.id + ": " + r.error);
          passes = false;
        } else {
          passes = !r.values.empty() && r.values.front().truthy();
        }
      }
      if (passes) continue;
      g.min_member -= instance_minimum(i, rule_);
      g.excluded.emplace_back(component, i.id);
    }
  }

  // The replica key of the member's component when one of its grouping keys reads it (the gang is then one per
  // replica), else "".
  std::string replica_key_read_by(const catalog::PodGroupMember& m) const {
    const catalog::ComponentDefinition* c = def_.component(m.component);
    if (!c || !c->replica_key) return {};
    const std::string& key = c->replica_key->source();
    const bool reads = std::any_of(m.group_by_key_paths.begin(), m.group_by_key_paths.end(),
                                   [&](const std::string& p) { return p.find(key) == 0; });
    return reads ? key : std::string();
  }

  long long replicas_of(const std::string& component, const std::string* instance) const {
    const ComponentView* view = view_of(component);
    long long replicas = 0;
    if (view)
      for (const auto& i : view->instances)
        if (!instance || i.id == *instance) replicas += i.replicas;
    return std::max(replicas, 1LL);
  }

 private:
  const catalog::Definition& def_;
  const std::vector<ComponentView>& components_;
  GangRule rule_;
  bool inspect_detail_;
  json::ObjectDocument& doc_;
  std::vector<std::string>& problems_;
};

}  // namespace

bool GangGroupView::counts(const std::string& component, const std::string& instance) const {
  if (std::find(members.begin(), members.end(), component) == members.end()) return false;
  return std::find(excluded.begin(), excluded.end(), std::pair{component, instance}) == excluded.end();
}

std::vector<GangGroupView> compute_gangs(const catalog::Definition& definition,
                                         const std::vector<ComponentView>& components, const ViewOptions& options,
                                         json::ObjectDocument& doc, std::vector<std::string>& problems) {
  GangBuilder builder(definition, components, options, doc, problems);
  std::vector<GangGroupView> gangs;
  if (definition.pod_group) {
    gangs.push_back(builder.newer(*definition.pod_group));
  } else if (!definition.pod_groups.empty()) {
    for (const auto& group : definition.pod_groups) builder.older(group, gangs);
  } else {
    GangGroupView g;
    g.name = definition.root().name;
    g.min_member = builder.subtree(definition.root().name, g.members);
    gangs.push_back(std::move(g));
  }
  for (auto& g : gangs) g.pods = gang_pods(g, components);
  if (definition.extra_gangs && options.inspect_detail) builder.add_extra_gangs(definition.extra_gangs, gangs);
  return gangs;
}

std::vector<std::string> unmeetable_gangs(const std::vector<GangGroupView>& gangs,
                                          const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (size_t i = 0; i < gangs.size(); ++i) {
    const GangGroupView& g = gangs[i];
    if (g.pods > 0 && g.min_member > g.pods)
      out.push_back("gang \"" + (i < names.size() ? names[i] : g.name) + "\" needs " + std::to_string(g.min_member) +
                    " pods placed at once but " + (g.copies > 1 ? "each copy starts " : "starts ") +
                    std::to_string(g.pods));
  }
  return out;
}

std::vector<GangMember> gang_members(const GangGroupView& gang, const std::vector<ComponentView>& components,
                                     GangRule rule) {
  std::vector<GangMember> out;
  const long long copies = std::max(gang.copies, 1LL);
  for (const auto& c : components) {
    if (std::find(gang.members.begin(), gang.members.end(), c.name) == gang.members.end()) continue;
    for (const auto& i : c.instances)
      if (i.shape != PodShape::Logical && i.pods > 0 && gang.counts(c.name, i.id))
        out.push_back({&c, &i, instance_minimum(i, rule) / copies});
  }
  return out;
}

ResourceList gang_min_resources(const std::vector<GangMember>& members) {
  ResourceList total;
  for (const auto& m : members) add_into(total, scaled(m.instance->pod_requests, m.min_member));
  return total;
}

std::vector<GangGroupView> expanded_gangs(const std::vector<GangGroupView>& gangs, size_t limit) {
  std::vector<GangGroupView> out;
  for (const auto& g : gangs) {
    if (g.replica_key_path.empty()) {
      if (out.size() < limit) out.push_back(g);
      continue;
    }
    for (long long r = 0; r < g.copies && out.size() < limit; ++r) {
      GangGroupView one = g;
      one.name = g.name + "-" + std::to_string(r);
      one.copies = 1;
      one.replica_key_path.clear();  // one copy: repeated no more
      out.push_back(std::move(one));
    }
  }
  return out;
}

std::string gang_object_name(const std::string& workload, const std::vector<GangGroupView>& gangs,
                             const GangGroupView& gang) {
  const auto ours = std::count_if(gangs.begin(), gangs.end(), [](const auto& g) { return !g.made_by_operator; });
  if (ours <= 1 && !gang.made_by_operator && gang.replica_key_path.empty()) return workload;
  return workload + "-" + gang.name;
}

void name_gangs_as_admitted(WorkloadView& view) {
  const std::string workload = view.given_name();
  std::vector<GangGroupView> named;
  for (const auto& g : view.gangs)
    for (auto& one : expanded_gangs({g}, 10000)) {
      one.name = gang_object_name(workload, view.gangs, g) == workload ? workload : workload + "-" + one.name;
      named.push_back(std::move(one));
    }
  view.gangs = std::move(named);
}

}  // namespace wm::view
