#include "webhook/reviewer.h"

#include "mapper/view/gangs.h"
#include "mapper/view/pod_edits.h"
#include "mapper/view/pod_rules.h"
#include "mapper/view/resources.h"
#include "mapper/view/view_json.h"
#include "policy/gang_values.h"
#include "policy/keys.h"
#include "policy/limits.h"
#include "policy/topology.h"
#include "webhook/replica_gang.h"

namespace wm::webhook {

std::string display_name(const view::WorkloadView& view, std::string_view namespace_name) {
  std::string ns(namespace_name.empty() ? view.namespace_name : std::string(namespace_name));
  std::string name = view.name.empty() ? view.generate_name + "*" : view.name;
  return view.gvk.kind + " " + (ns.empty() ? "" : ns + "/") + name;
}

namespace {

// The gang name: the workload's name, or, when it has only generateName, generateName plus the
// start of the request uid (unique per request, the same on retries of that request).
std::string workload_base_name(const view::WorkloadView& view, std::string_view uid) {
  if (!view.name.empty()) return view.name;
  std::string suffix;
  for (char c : uid) {
    if (suffix.size() == 8) break;
    if (std::isalnum(static_cast<unsigned char>(c))) suffix.push_back(static_cast<char>(std::tolower(c)));
  }
  std::string prefix = view.generate_name.empty() ? view.gvk.kind + "-" : view.generate_name;
  for (auto& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return prefix + suffix;
}

std::string recorded_group_name(simdjson::dom::element object) {
  std::string_view name;
  if (object.at_pointer("/metadata/annotations").get(object) == simdjson::SUCCESS && object.is_object() &&
      object.get_object().value_unsafe().at_key(kGroupNameAnnotation).get_string().get(name) == simdjson::SUCCESS)
    return std::string(name);
  return {};
}

std::optional<std::string> queue_for(const policy::Rule& rule, simdjson::dom::element object) {
  if (rule.queue_value) return rule.queue_value;
  if (rule.queue_label) {
    simdjson::dom::element labels;
    std::string_view value;
    if (object.at_pointer("/metadata/labels").get(labels) == simdjson::SUCCESS && labels.is_object() &&
        labels.get_object().value_unsafe().at_key(*rule.queue_label).get_string().get(value) == simdjson::SUCCESS)
      return std::string(value);
  }
  return rule.queue_default;
}

// The gang a pod template is in; none when its member's filters leave it out.
const view::GangGroupView* gang_of(const view::WorkloadView& view, const std::string& component,
                                   const std::string& instance) {
  for (const auto& g : view.gangs)
    if (g.counts(component, instance)) return &g;
  return nullptr;
}

// Renders `templates` into `out` from position `at` on, reusing the strings already there (the same
// edits are rendered once per pod template).
void render_into(json::StringPairs& out, size_t& at, const policy::TemplatePairs& templates,
                 const policy::TemplateValues& values, bool in_no_gang = false) {
  for (const auto& [key, t] : templates) {
    if ((in_no_gang && t.about_gang()) ||
        (t.about_topology() && values.topology_mode.empty() && values.topology_sub_group_name.empty()))
      continue;
    if (at == out.size()) out.emplace_back();
    out[at].first = key;
    out[at].second.clear();
    t.render_into(out[at].second, values);
    // A value made of variables that are all empty (a gang without a topology) is left out, not written empty.
    if (!out[at].second.empty() || !t.uses_variables()) ++at;
  }
}

void put_into(json::StringPairs& out, size_t& at, std::string_view key, std::string_view value) {
  if (at == out.size()) out.emplace_back();
  out[at].first = key;
  out[at].second = value;
  ++at;
}

bool any_uses_group(std::initializer_list<const policy::TemplatePairs*> lists) {
  for (const policy::TemplatePairs* list : lists)
    for (const auto& [key, t] : *list)
      if (t.uses("group")) return true;
  return false;
}

json::StringPairs render(const policy::TemplatePairs& templates, const policy::TemplateValues& values) {
  json::StringPairs out;
  size_t at = 0;
  render_into(out, at, templates, values);
  out.resize(at);
  return out;
}

}  // namespace

Reviewer::Reviewer(const AdmissionRequest& req, const policy::Rule& rule, const view::WorkloadView& view,
                   json::ObjectDocument& doc, const policy::ProfileEdits& edits)
    : req_(req), rule_(rule), view_(view), doc_(doc), profile_(edits) {
  // The gang name chosen when the workload was created stays its name: an update of an object made from
  // generateName must not rename the gangs its pods and PodGroups already carry. It is read from the stored
  // object, so a user's own annotation, on a create or in an update, decides nothing.
  if (req.has_old_object) name_ = recorded_group_name(req.old_object);
  if (name_.empty()) name_ = workload_base_name(view, req.uid);
  queue_ = queue_for(rule, req.object).value_or("");
  for (const auto& g : view.gangs) gang_names_.push_back(view::gang_object_name(name_, view.gangs, g));
  values_.name = name_;
  namespace_name_ = req.namespace_name.empty() ? view.namespace_name : std::string(req.namespace_name);
  values_.namespace_name = namespace_name_;
  values_.kind = view.gvk.kind;
  values_.queue = queue_;
  values_.pods = view.total_pods;
  values_.gpus = view::gpu_count(view.total_requests);
  values_.group = gang_names_.empty() ? std::string_view(name_) : std::string_view(gang_names_.front());
  values_.gang_size = view.gangs.empty() ? view.total_pods : view.gangs.front().min_member;
  // The workload's own (KAI reads it on the workload): its first gang's, as every gang has the rule's.
  policy::set_topology(values_, policy::first_topology(view));
  if (profile_.writes_priority_class || rule.writes_priority_class)
    priority_class_ = policy::first_priority_class(view, req.object);
  values_.priority_class_name = priority_class_;
  if (profile_.writes_task_groups || rule.writes_task_groups) task_groups_.resize(view.gangs.size());
  names_gangs_on_pods_ =
      any_uses_group({&profile_.pod_labels, &profile_.pod_annotations, &rule.pod_labels, &rule.pod_annotations});
}

std::optional<std::string> Reviewer::missing_queue(const view::ReferenceStore* queues) const {
  if (!rule_.profile || queue_.empty() || !queues) return std::nullopt;
  const catalog::GroupVersionKind& object = rule_.profile->queues.object;
  if (object.kind.empty() || !queues->holds_kind(object.group, object.kind)) return std::nullopt;
  // Cluster-scoped queues (KAI's, Volcano's) are held without a namespace; namespaced ones in the workload's.
  if (queues->find(object.group, object.kind, "", queue_) ||
      queues->find(object.group, object.kind, namespace_name_, queue_))
    return std::nullopt;
  return display_name(view_, namespace_name_) + ": queue \"" + queue_ + "\" does not exist (no " +
         object.api_version() + " " + object.kind + " of that name in the cluster); " +
         profile_.scheduler_name.value_or(rule_.profile->name) + " leaves the workload pending until it is created";
}

std::optional<std::string> Reviewer::missing_topology(const view::ReferenceStore* cluster) const {
  const catalog::TopologyConstraint* topology = policy::first_topology(view_);
  if (!cluster || !topology || !rule_.profile) return std::nullopt;
  auto why = policy::missing_topology_level(rule_.profile->topologies, *cluster, *topology);
  if (!why) return std::nullopt;
  const std::string scheduler = profile_.scheduler_name.value_or(rule_.profile->name);
  return display_name(view_, namespace_name_) + ": " + scheduler + " cannot place its gangs by topology " +
         topology->topology_name + ": " + *why + "; it leaves them pending until one does";
}

std::string_view Reviewer::task_groups_of(const view::GangGroupView* gang) {
  if (!gang || task_groups_.empty()) return {};
  std::string& json = task_groups_[gang - view_.gangs.data()];
  if (json.empty())
    json = policy::task_groups_json(
        view::gang_members(*gang, view_.components, rule_.profile ? rule_.profile->gang_rule : view::GangRule::Minimum),
        view_.document(doc_).root());
  return json;
}

std::string Reviewer::patch(std::vector<std::string>& warnings) {
  json::JsonPatchBuilder patch(doc_.root());
  view::PodEditor editor(view_, patch);
  const policy::ProfileEdits& profile = profile_;
  view::PodEdits edits;  // reused from one pod template to the next
  edits.scheduler_name = profile.scheduler_name;
  for (const auto& c : view_.components)
    for (const auto& i : c.instances) {
      if (i.shape == view::PodShape::Logical || !changed_by_this_request(i.location)) continue;
      policy::TemplateValues v = values_;
      v.component = c.name;
      v.instance = i.id;
      const view::GangGroupView* gang = gang_of(view_, c.name, i.id);
      v.group = gang ? std::string_view(gang_names_[gang - view_.gangs.data()]) : std::string_view(name_);
      v.gang_size = gang ? gang->min_member : view_.total_pods;
      v.task_groups = task_groups_of(gang);
      policy::set_topology(v, gang && gang->topology ? &*gang->topology : nullptr);
      if (profile.reads_pod_scheduling_group || rule_.reads_pod_scheduling_group)
        if (auto own = own_scheduling_group(i); !own || own->at_key("podGroupName").get(v.pod_scheduling_group))
          v.pod_scheduling_group = {};
      // A template its gang's filters leave out (a CPU-only helper, say) is scheduled on its own: no gang names.
      const bool left_out = !gang && std::any_of(view_.gangs.begin(), view_.gangs.end(), [&](const auto& g) {
        return std::find(g.members.begin(), g.members.end(), c.name) != g.members.end();
      });
      size_t labels = 0, annotations = 0;
      render_into(edits.labels, labels, profile.pod_labels, v, left_out);
      render_into(edits.labels, labels, rule_.pod_labels, v, left_out);
      render_into(edits.annotations, annotations, profile.pod_annotations, v, left_out);
      render_into(edits.annotations, annotations, rule_.pod_annotations, v, left_out);
      if (!profile.sub_group_annotations.empty() && view::is_sub_group_template(view_, i))
        render_into(edits.annotations, annotations, profile.sub_group_annotations, v, left_out);
      if (gang && !gang->replica_key_path.empty() && names_gangs_on_pods_) {
        // The copies share this template: each pod's admission appends its replica key (replica_gang.h).
        put_into(edits.annotations, annotations, kReplicaGangAnnotation, v.group);
        put_into(edits.annotations, annotations, kReplicaKeyAnnotation, gang->replica_key_path);
      }
      edits.labels.resize(labels);
      edits.annotations.resize(annotations);
      edits.scheduling_group.reset();
      if (profile.pod_scheduling_group && gang && gang->replica_key_path.empty() && !own_scheduling_group(i))
        if (std::string group = profile.pod_scheduling_group->render(v); !group.empty())
          edits.scheduling_group = std::move(group);
      editor.edit(i, edits, warnings);
    }
  editor.finish(doc_.root(), warnings);
  workload_edits(patch, warnings);
  return patch.empty() ? std::string() : patch.str();
}

void Reviewer::workload_edits(json::JsonPatchBuilder& patch, std::vector<std::string>& warnings) {
  const policy::ProfileEdits& profile = profile_;
  view::RootEdits root{render(profile.workload_labels, values_), render(profile.workload_annotations, values_)};
  view::apply_child_metadata_edits(patch, view_, root, warnings);  // the profile's own, not workload-map's below
  if (!profile.sub_group_annotations.empty() && !view_.sub_group_metadata.empty())
    view::apply_sub_group_edits(
        patch, view_, render(profile.sub_group_annotations, values_),
        [&](const std::string& metadata) {
          return changed_by_this_request(metadata.substr(0, metadata.rfind('/')));  // the object it is the metadata of
        },
        warnings);
  if ((profile_.pod_group || profile_.workload) && rule_.profile) {
    // What the PodGroup controller needs to make this workload's PodGroups after admission, decided here once.
    root.labels.emplace_back(kProfileLabel, rule_.profile->name);
    root.annotations.emplace_back(kGroupNameAnnotation, name_);
    if (!queue_.empty()) root.annotations.emplace_back(kQueueAnnotation, queue_);
  }
  if (rule_.summary_annotations) {
    root.annotations.emplace_back(kGangSizeAnnotation, std::to_string(values_.gang_size));
    root.annotations.emplace_back(kPodsAnnotation, std::to_string(view_.total_pods));
    root.annotations.emplace_back(kRequestsAnnotation, view::resources_json(view_.total_requests));
  }
  view::apply_root_edits(patch, root, warnings);
}

std::optional<simdjson::dom::element> Reviewer::own_scheduling_group(const view::InstanceView& instance) const {
  const std::optional<std::string> spec = instance.pod_spec_location();
  simdjson::dom::element group;
  if (!spec || req_.object.at_pointer(*spec + "/schedulingGroup").get(group) != simdjson::SUCCESS) return std::nullopt;
  return group;
}

bool Reviewer::changed_by_this_request(const std::string& location) const {
  if (req_.operation != "UPDATE") return true;
  simdjson::dom::element before, after;
  if (!req_.has_old_object || req_.old_object.at_pointer(location).get(before) != simdjson::SUCCESS) return true;
  if (req_.object.at_pointer(location).get(after) != simdjson::SUCCESS) return true;
  // The API server serialises both with the same encoder, so equal values are equal text.
  return simdjson::to_string(before) != simdjson::to_string(after);
}

std::vector<std::string> Reviewer::unmeetable() const {
  std::vector<std::string> out;
  const std::string scheduler = profile_.scheduler_name ? *profile_.scheduler_name : "its scheduler";
  for (const auto& why : view::unmeetable_gangs(view_.gangs, gang_names_))
    out.push_back(display_name(view_, req_.namespace_name) + " never starts under " + scheduler + ": " + why);
  return out;
}

std::vector<std::string> Reviewer::dropped_topology() const {
  std::vector<std::string> out;
  const std::string under = "profile " + (rule_.profile ? rule_.profile->name : std::string("none")) + " (" +
                            profile_.scheduler_name.value_or("its scheduler") + ")";
  for (const auto& what : policy::dropped_topology(profile_, view_))
    out.push_back(display_name(view_, req_.namespace_name) + ": " + what + " is dropped: " + under +
                  " writes nothing a scheduler reads for it here");
  return out;
}

void Reviewer::unfit_topology(const view::ReferenceStore* cluster, std::vector<std::string>& warnings,
                              std::vector<std::string>& refusals) const {
  const std::shared_ptr<const view::NodeDomains> domains = cluster ? cluster->node_domains() : nullptr;
  if (!domains) return;
  const view::GangRule counting = rule_.profile ? rule_.profile->gang_rule : view::GangRule::Minimum;
  const std::string scheduler = profile_.scheduler_name.value_or("its scheduler");
  for (size_t i = 0; i < view_.gangs.size(); ++i) {
    const view::GangGroupView& gang = view_.gangs[i];
    if (!gang.topology || gang.topology->required_level.empty()) continue;
    const std::string& level = gang.topology->required_level;
    if (!domains->knows(level)) continue;
    const std::string named = "gang " + (i < gang_names_.size() ? gang_names_[i] : gang.name);
    if (!domains->carries(level)) {
      warnings.push_back(display_name(view_, req_.namespace_name) + ": no schedulable node carries the label " + level +
                         ", inside one value of which " + named + " must land: it waits until nodes do");
      continue;
    }
    const view::ResourceList demand = view::gang_min_resources(view::gang_members(gang, view_.components, counting));
    for (const auto& shortfall : view::domain_shortfalls(*domains, level, demand))
      (rule_.limits.refuse_unmeetable_gangs ? refusals : warnings)
          .push_back(display_name(view_, req_.namespace_name) + " never starts under " + scheduler + ": " + named +
                     " needs " + shortfall);
  }
}

std::optional<std::string> Reviewer::unserved_pod_group(const view::ReferenceStore* cluster) const {
  if (!cluster || view_.gangs.empty()) return std::nullopt;
  for (const policy::ObjectTemplate* t :
       {profile_.pod_group.get(), profile_.workload ? &profile_.workload->object : nullptr}) {
    if (!t || !t->object_kind()) continue;
    const catalog::GroupVersionKind& kind = *t->object_kind();
    if (!cluster->known_unserved(kind.group, kind.kind)) continue;
    return display_name(view_, req_.namespace_name) + " gets no gang: this cluster does not serve " +
           kind.api_version() + " " + kind.kind + ", which profile " + rule_.profile->name +
           " makes for its gangs (its API or CRD is not installed or not enabled)";
  }
  return std::nullopt;
}

std::optional<std::string> Reviewer::no_workload_object() const {
  if (!profile_.workload) return std::nullopt;
  std::string why = policy::no_workload_object(*profile_.workload, view_);
  if (why.empty()) return std::nullopt;
  return display_name(view_, req_.namespace_name) + " gets no " +
         (profile_.workload->object.object_kind() ? profile_.workload->object.object_kind()->kind
                                                  : std::string("workload object")) +
         ": " + why;
}

std::vector<std::string> Reviewer::invalid_pods() const {
  std::vector<std::string> out;
  for (auto& breach : view::pod_template_breaches(view_))
    out.push_back(display_name(view_, req_.namespace_name) + ": " + breach + "; the API server will refuse its pods");
  return out;
}

std::vector<std::string> Reviewer::uncounted_devices() const {
  std::vector<std::string> out;
  for (const auto& u : view_.uncounted_devices)
    out.push_back(display_name(view_, req_.namespace_name) + ": devices not counted: " + u.what);
  for (const auto& u : view_.unresolved_references)
    out.push_back(display_name(view_, req_.namespace_name) + ": pods not counted: " + u);
  return out;
}

std::vector<std::string> Reviewer::violations() {
  std::vector<std::string> out;
  if (rule_.limits.refuse_unmeetable_gangs) out = unmeetable();
  if (rule_.limits.refuse_invalid_pods)
    for (auto& v : invalid_pods()) out.push_back(std::move(v));
  if (rule_.limits.refuse_dropped_topology)
    for (auto& v : dropped_topology()) out.push_back(std::move(v));
  const policy::LimitSubject subject{view_,
                                     doc_,
                                     display_name(view_, req_.namespace_name),
                                     namespace_name_,
                                     values_.queue,
                                     rule_.queue_label,
                                     profile_.scheduler_name};
  for (auto& v : policy::limit_violations(rule_.limits, subject)) out.push_back(std::move(v));
  return out;
}

}  // namespace wm::webhook
