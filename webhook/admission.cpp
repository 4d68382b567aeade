#include "webhook/admission.h"

#include <boost/beast/core/detail/base64.hpp>

#include "mapper/json/json_read.h"
#include "mapper/json/json_writer.h"
#include "mapper/view/gangs.h"
#include "mapper/view/pod_edits.h"
#include "mapper/view/resources.h"
#include "mapper/view/view_json.h"
#include "mapper/view/workload_view.h"
#include "webhook/gang_values.h"
#include "webhook/replica_gang.h"

namespace wm::webhook {

std::string_view outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Patched:
      return "patched";
    case Outcome::Unchanged:
      return "unchanged";
    case Outcome::Allowed:
      return "allowed";
    case Outcome::Denied:
      return "denied";
    case Outcome::UnknownKind:
      return "unknown-kind";
    case Outcome::NoRule:
      return "no-rule";
    case Outcome::Skipped:
      return "skipped";
    case Outcome::Controlled:
      return "controlled";
    case Outcome::ReplicaGang:
      return "replica-gang";
    case Outcome::NotUnderstood:
      return "not-understood";
    case Outcome::FailedClosed:
      return "failed-closed";
    case Outcome::BadRequest:
      return "bad-request";
  }
  return "unknown";
}

namespace {

struct Request {
  std::string_view uid, operation, namespace_name, api_version, kind, group;
  simdjson::dom::element object, old_object;
  bool has_object = false, has_old_object = false;
};

AdmissionResult bad_request(std::string reason) {
  AdmissionResult r;
  r.http_status = 400;
  r.outcome = Outcome::BadRequest;
  r.message = reason;
  r.body = std::move(reason);
  return r;
}

// The AdmissionReview answer. `patch` empty means none; `denial` empty means allowed.
// At most `bytes` bytes of `text`, never cutting a UTF-8 character in two (an invalid string would fail the review).
std::string_view utf8_prefix(std::string_view text, size_t bytes) {
  if (text.size() <= bytes) return text;
  size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // back to a lead byte
  return text.substr(0, end);
}

std::string response(std::string_view uid, const std::string& patch, const std::string& denial, int code,
                     const std::vector<std::string>& warnings) {
  std::string out;
  out.reserve(160 + uid.size() + denial.size() + patch.size() * 4 / 3);
  out += R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":)";
  append_json_string(out, uid);
  out += denial.empty() ? R"(,"allowed":true)" : R"(,"allowed":false)";
  if (!denial.empty()) {
    out += R"(,"status":{"code":)" + std::to_string(code) + R"(,"message":)";
    append_json_string(out, denial);
    out += "}";
  }
  if (!patch.empty()) {
    out += R"(,"patchType":"JSONPatch","patch":")";
    const size_t at = out.size();
    out.resize(at + boost::beast::detail::base64::encoded_size(patch.size()));
    out.resize(at + boost::beast::detail::base64::encode(out.data() + at, patch.data(), patch.size()));
    out += '"';
  }
  if (!warnings.empty()) {
    out += R"(,"warnings":[)";
    for (size_t i = 0; i < warnings.size(); ++i) {
      if (i) out += ',';
      append_json_string(out, utf8_prefix(warnings[i], 500));  // the API server caps warnings
    }
    out += "]";
  }
  return out + "}}";
}

std::string display_name(const WorkloadView& view, std::string_view namespace_name) {
  std::string ns(namespace_name.empty() ? view.namespace_name : std::string(namespace_name));
  std::string name = view.name.empty() ? view.generate_name + "*" : view.name;
  return view.gvk.kind + " " + (ns.empty() ? "" : ns + "/") + name;
}

// The gang name: the workload's name, or, when it has only generateName, generateName plus the
// start of the request uid (unique per request, the same on retries of that request).
std::string workload_base_name(const WorkloadView& view, std::string_view uid) {
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

std::optional<std::string> queue_for(const Rule& rule, simdjson::dom::element object) {
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
const GangGroupView* gang_of(const WorkloadView& view, const std::string& component, const std::string& instance) {
  for (const auto& g : view.gangs)
    if (g.counts(component, instance)) return &g;
  return nullptr;
}

// Renders `templates` into `out` from position `at` on, reusing the strings already there (the same
// edits are rendered once per pod template).
void render_into(StringPairs& out, size_t& at, const TemplatePairs& templates, const TemplateValues& values,
                 bool in_no_gang = false) {
  for (const auto& [key, t] : templates) {
    if (in_no_gang && t.about_gang()) continue;
    if (at == out.size()) out.emplace_back();
    out[at].first = key;
    out[at].second.clear();
    t.render_into(out[at].second, values);
    ++at;
  }
}

void put_into(StringPairs& out, size_t& at, std::string_view key, std::string_view value) {
  if (at == out.size()) out.emplace_back();
  out[at].first = key;
  out[at].second = value;
  ++at;
}

bool any_uses_group(std::initializer_list<const TemplatePairs*> lists) {
  for (const TemplatePairs* list : lists)
    for (const auto& [key, t] : *list)
      if (t.uses("group")) return true;
  return false;
}

StringPairs render(const TemplatePairs& templates, const TemplateValues& values) {
  StringPairs out;
  size_t at = 0;
  render_into(out, at, templates, values);
  return out;
}

std::string quantity_text(const std::string& resource, const Quantity& q) { return q.str(is_byte_resource(resource)); }

class Reviewer {
 public:
  Reviewer(const Request& req, const Rule& rule, const WorkloadView& view, ObjectDocument& doc, bool standalone)
      : req_(req), rule_(rule), view_(view), doc_(doc), profile_(profile_edits(rule, view, standalone)) {
    // The gang name chosen when the workload was created stays its name: an update of an object made from
    // generateName must not rename the gangs its pods and PodGroups already carry. It is read from the stored
    // object, so a user's own annotation, on a create or in an update, decides nothing.
    if (req.has_old_object) name_ = recorded_group_name(req.old_object);
    if (name_.empty()) name_ = workload_base_name(view, req.uid);
    queue_ = queue_for(rule, req.object).value_or("");
    for (const auto& g : view.gangs) gang_names_.push_back(gang_object_name(name_, view.gangs, g));
    values_.name = name_;
    namespace_name_ = req.namespace_name.empty() ? view.namespace_name : std::string(req.namespace_name);
    values_.namespace_name = namespace_name_;
    values_.kind = view.gvk.kind;
    values_.queue = queue_;
    values_.pods = view.total_pods;
    values_.gpus = gpu_count(view.total_requests);
    values_.group = gang_names_.empty() ? std::string_view(name_) : std::string_view(gang_names_.front());
    values_.gang_size = view.gangs.empty() ? view.total_pods : view.gangs.front().min_member;
    if (profile_.writes_priority_class || rule.writes_priority_class)
      priority_class_ = first_priority_class(view, req.object);
    values_.priority_class_name = priority_class_;
    if (profile_.writes_task_groups || rule.writes_task_groups) task_groups_.resize(view.gangs.size());
    names_gangs_on_pods_ =
        any_uses_group({&profile_.pod_labels, &profile_.pod_annotations, &rule.pod_labels, &rule.pod_annotations});
  }

  // The rule's profile with its override for this kind merged in; no edits without a profile.
  static const ProfileEdits& profile_edits(const Rule& rule, const WorkloadView& view, bool standalone) {
    static const ProfileEdits no_profile;
    return rule.profile ? Policy::edits_for(*rule.profile, view.gvk.group, view.gvk.kind, standalone) : no_profile;
  }

  // The gang's task groups, made the first time one of its pod templates needs them: every pod gets the same text.
  std::string_view task_groups_of(const GangGroupView* gang) {
    if (!gang || task_groups_.empty()) return {};
    std::string& json = task_groups_[gang - view_.gangs.data()];
    if (json.empty())
      json = task_groups_json(
          gang_members(*gang, view_.components, rule_.profile ? rule_.profile->gang_rule : GangRule::Minimum),
          view_.document(doc_).root());
    return json;
  }

  std::string patch(std::vector<std::string>& warnings) {
    JsonPatchBuilder patch(doc_.root());
    PodEditor editor(view_, patch);
    const ProfileEdits& profile = profile_;
    PodEdits edits;  // reused from one pod template to the next
    edits.scheduler_name = profile.scheduler_name;
    for (const auto& c : view_.components)
      for (const auto& i : c.instances) {
        if (i.shape == PodShape::Logical || !changed_by_this_request(i.location)) continue;
        TemplateValues v = values_;
        v.component = c.name;
        v.instance = i.id;
        const GangGroupView* gang = gang_of(view_, c.name, i.id);
        v.group = gang ? std::string_view(gang_names_[gang - view_.gangs.data()]) : std::string_view(name_);
        v.gang_size = gang ? gang->min_member : view_.total_pods;
        v.task_groups = task_groups_of(gang);
        // A template its gang's filters leave out (a CPU-only helper, say) is scheduled on its own: no gang names.
        const bool left_out = !gang && std::any_of(view_.gangs.begin(), view_.gangs.end(), [&](const auto& g) {
          return std::find(g.members.begin(), g.members.end(), c.name) != g.members.end();
        });
        size_t labels = 0, annotations = 0;
        render_into(edits.labels, labels, profile.pod_labels, v, left_out);
        render_into(edits.labels, labels, rule_.pod_labels, v, left_out);
        render_into(edits.annotations, annotations, profile.pod_annotations, v, left_out);
        render_into(edits.annotations, annotations, rule_.pod_annotations, v, left_out);
        if (gang && !gang->replica_key_path.empty() && names_gangs_on_pods_) {
          // The copies share this template: each pod's admission appends its replica key (replica_gang.h).
          put_into(edits.annotations, annotations, kReplicaGangAnnotation, v.group);
          put_into(edits.annotations, annotations, kReplicaKeyAnnotation, gang->replica_key_path);
        }
        edits.labels.resize(labels);
        edits.annotations.resize(annotations);
        editor.edit(i, edits, warnings);
      }
    editor.finish(doc_.root(), warnings);
    RootEdits root{render(profile.workload_labels, values_), render(profile.workload_annotations, values_)};
    if (profile_.pod_group && rule_.profile) {
      // What the PodGroup controller needs to make this workload's PodGroups after admission, decided here once.
      root.labels.emplace_back(kProfileLabel, rule_.profile->name);
      root.annotations.emplace_back(kGroupNameAnnotation, name_);
      if (!queue_.empty()) root.annotations.emplace_back(kQueueAnnotation, queue_);
    }
    if (rule_.summary_annotations) {
      root.annotations.emplace_back("workload-map.io/gang-size", std::to_string(values_.gang_size));
      root.annotations.emplace_back("workload-map.io/pods", std::to_string(view_.total_pods));
      root.annotations.emplace_back("workload-map.io/requests", resources_json(view_.total_requests));
    }
    apply_root_edits(patch, root, warnings);
    return patch.empty() ? std::string() : patch.str();
  }

  // On UPDATE, a pod template is edited only when this update changes it. One it leaves alone stays exactly as
  // stored: the API server holds some immutable (a Job's), and for others any change starts a rollout of every pod
  // (a Deployment's), so a policy change must not be written into them by an unrelated update (a label, a scale).
  bool changed_by_this_request(const std::string& location) const {
    if (req_.operation != "UPDATE") return true;
    simdjson::dom::element before, after;
    if (!req_.has_old_object || req_.old_object.at_pointer(location).get(before) != simdjson::SUCCESS) return true;
    if (req_.object.at_pointer(location).get(after) != simdjson::SUCCESS) return true;
    // The API server serialises both with the same encoder, so equal values are equal text.
    return simdjson::to_string(before) != simdjson::to_string(after);
  }

  // Gangs the profile's scheduler would wait on for ever; refused or warned of, as the rule says.
  std::vector<std::string> unmeetable() const {
    std::vector<std::string> out;
    const std::string scheduler = profile_.scheduler_name ? *profile_.scheduler_name : "its scheduler";
    for (const auto& why : unmeetable_gangs(view_.gangs, gang_names_))
      out.push_back(display_name(view_, req_.namespace_name) + " never starts under " + scheduler + ": " + why);
    return out;
  }

  std::vector<std::string> violations() {
    std::vector<std::string> out;
    const Limits& limits = rule_.limits;
    const std::string who = display_name(view_, req_.namespace_name);
    if (limits.refuse_unmeetable_gangs)
      for (auto& v : unmeetable()) out.push_back(std::move(v));
    const std::string scope = "the limit for namespace " + namespace_name_;
    for (const auto& [resource, limit] : limits.resources) {
      auto it = view_.total_requests.find(resource);
      if (it == view_.total_requests.end() || it->second <= limit) continue;
      std::string parts;
      for (const auto& c : view_.components)
        for (const auto& i : c.instances) {
          auto per_pod = i.pod_requests.find(resource);
          if (per_pod == i.pod_requests.end() || i.pods == 0) continue;
          if (!parts.empty()) parts += ", ";
          parts += i.id + " " + std::to_string(i.pods) + "\xC3\x97" + quantity_text(resource, per_pod->second);
        }
      out.push_back(who + " asks for " + quantity_text(resource, it->second) + " " + resource + " across " +
                    std::to_string(view_.total_pods) + " pods (" + parts + "); " + scope + " is " +
                    quantity_text(resource, limit));
    }
    if (limits.max_pods && view_.total_pods > *limits.max_pods)
      out.push_back(who + " has " + std::to_string(view_.total_pods) + " pods; " + scope + " is " +
                    std::to_string(*limits.max_pods) + " pods");
    if (limits.require_queue && values_.queue.empty())
      out.push_back(who + " names no queue" +
                    (rule_.queue_label ? ": set the label " + *rule_.queue_label + " on it" : std::string()));
    const std::optional<std::string>& profile_scheduler = profile_.scheduler_name;
    for (const auto& c : view_.components)
      for (const auto& i : c.instances) {
        if (i.shape == PodShape::Logical) continue;
        const std::string where = c.name + "/" + i.id;
        if (i.scheduler_name && !limits.allowed_schedulers.empty() &&
            std::find(limits.allowed_schedulers.begin(), limits.allowed_schedulers.end(), *i.scheduler_name) ==
                limits.allowed_schedulers.end()) {
          std::string allowed;
          for (const auto& s : limits.allowed_schedulers) allowed += (allowed.empty() ? "" : ", ") + s;
          out.push_back(who + ": pod template " + where + " uses scheduler \"" + *i.scheduler_name +
                        "\"; allowed in namespace " + namespace_name_ + ": " + allowed);
        }
        if (limits.forbid_scheduler_override && profile_scheduler && i.scheduler_name &&
            *i.scheduler_name != *profile_scheduler)
          out.push_back(who + ": pod template " + where + " sets schedulerName \"" + *i.scheduler_name +
                        "\"; namespace " + namespace_name_ + " is scheduled by " + *profile_scheduler +
                        ": remove the field");
        if (limits.require_requests_with_gpus && i.shape != PodShape::Fragmented) {
          simdjson::dom::element pod_spec;
          std::string at = i.shape == PodShape::PodTemplate ? i.location + "/spec" : i.location;
          if (view_.document(doc_).root().at_pointer(at).get(pod_spec) == simdjson::SUCCESS)
            for (const auto& name : gpu_containers_missing_requests(pod_spec, {"cpu", "memory"}))
              out.push_back(who + ": container " + name + " in " + where +
                            " asks for GPUs in its limits but does not request cpu and memory");
        }
      }
    return out;
  }

 private:
  const Request& req_;
  const Rule& rule_;
  const WorkloadView& view_;
  ObjectDocument& doc_;
  const ProfileEdits& profile_;
  std::string name_, namespace_name_, queue_;
  std::vector<std::string> gang_names_;   // by position in view_.gangs
  std::vector<std::string> task_groups_;  // by position in view_.gangs, when the profile writes them
  std::string priority_class_;
  TemplateValues values_;
  bool names_gangs_on_pods_ = false;  // some pod label or annotation is written {{group}}
};

// The object's controller: its ownerReference with controller: true. When the catalog knows that kind as part of a
// workload (a defined kind, or a kind a definition says its workloads make, like Knative's Revision), the object
// was made by the controller from a pod template its top-level workload's admission already edited and checked, so it
// is neither edited nor checked again: a second decision would regroup it on its own (a JobSet's Job as a gang of its
// own, a Deployment's Pod under a name made from its uid) and could refuse a part of a workload already admitted as a
// whole. An object whose controller the catalog does not know is the top-level workload as far as this webhook can see,
// and is handled as one.
struct Controller {
  std::string_view api_version, kind;
};

// One walk over the object's ownerReferences: its controller, and whether a Pod owns it (as controller or not).
// A Pod that a Pod owns is that pod's stand-in and never a workload of its own: YuniKorn's gang placeholders are
// owned by the pod they hold a place for, not as controller (k8shim pkg/cache/metadata.go getOwnerReference), and
// must keep the app and task group the scheduler wrote on them, or the gang never forms.
struct Owners {
  std::optional<Controller> controller;
  bool pod = false;
};

Owners owners_of(simdjson::dom::element object) {
  Owners out;
  simdjson::dom::array owners;
  if (object["metadata"]["ownerReferences"].get_array().get(owners) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element owner : owners) {
    const std::string_view api_version = string_member(owner, "apiVersion"), kind = string_member(owner, "kind");
    if (kind == "Pod" && api_version == "v1") out.pod = true;
    bool controller = false;
    if (!out.controller && owner["controller"].get_bool().get(controller) == simdjson::SUCCESS && controller)
      out.controller = Controller{api_version, kind};
  }
  return out;
}

std::optional<AdmissionResult> parse_request(std::string_view body, simdjson::dom::parser& parser, Request& req) {
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  // parse() copies strings into the parser's buffers, so `padded` may go; the DOM stays valid until the
  // parser's next parse.
  if (auto error = parser.parse(padded).get(root))
    return bad_request(std::string("the body is not JSON: ") + simdjson::error_message(error));
  if (!root.is_object()) return bad_request("the body is not an AdmissionReview object");
  std::string_view api_version = string_member(root, "apiVersion"), kind = string_member(root, "kind");
  if (api_version != "admission.k8s.io/v1")
    return bad_request("apiVersion must be admission.k8s.io/v1, not \"" + std::string(api_version) +
                       "\" (set admissionReviewVersions: [v1])");
  if (kind != "AdmissionReview") return bad_request("kind must be AdmissionReview");
  simdjson::dom::element request;
  if (root["request"].get(request) || !request.is_object()) return bad_request("the AdmissionReview has no request");
  req.uid = string_member(request, "uid");
  if (req.uid.empty()) return bad_request("request.uid is missing");
  req.operation = string_member(request, "operation");
  if (req.operation.empty()) return bad_request("request.operation is missing");
  req.namespace_name = string_member(request, "namespace");
  simdjson::dom::element object;
  req.has_object = !request["object"].get(object) && object.is_object();
  simdjson::dom::element old_object;
  req.has_old_object = req.operation == "UPDATE" && !request["oldObject"].get(old_object) && old_object.is_object();
  if (req.has_old_object) req.old_object = old_object;
  if (req.has_object) {
    req.object = object;
    req.api_version = string_member(object, "apiVersion");
    req.kind = string_member(object, "kind");
  }
  if ((req.operation == "CREATE" || req.operation == "UPDATE") && !req.has_object)
    return bad_request("request.object is missing for a " + std::string(req.operation));
  if (req.has_object && (req.api_version.empty() || req.kind.empty()))
    return bad_request("request.object has no apiVersion or kind");
  req.group = split_api_version(req.api_version).first;
  return std::nullopt;
}

}  // namespace

AdmissionResult review(Endpoint endpoint, std::string_view body, const AdmissionState& state,
                       simdjson::dom::parser& parser) {
  Request req;
  if (auto bad = parse_request(body, parser, req)) return std::move(*bad);
  AdmissionResult result;
  result.kind = std::string(req.kind);
  result.operation = std::string(req.operation);
  auto allow = [&](Outcome outcome, const std::vector<std::string>& warnings = {}) {
    result.outcome = outcome;
    result.body = response(req.uid, "", "", 0, warnings);
    return result;
  };
  if (req.operation != "CREATE" && req.operation != "UPDATE") return allow(Outcome::Skipped);
  const Owners owners = owners_of(req.object);
  const std::optional<Controller>& controller = owners.controller;

  // A pod of a gang repeated per replica finishes the gang name its workload's admission wrote, whatever rule its
  // own kind matches: that admission decided.
  if (endpoint == Endpoint::Mutate && controller && !owners.pod)
    if (auto named = name_replica_gang(req.object, *state.catalog);
        named && state.catalog->part_of_a_workload(controller->api_version, controller->kind)) {
      result.outcome = named->patch.empty() ? Outcome::Controlled : Outcome::ReplicaGang;
      result.body = response(req.uid, named->patch, "", 0, named->warnings);
      return result;
    }

  const Rule* rule = state.policy->match(req.namespace_name, req.group, req.kind);
  if (!rule) return allow(Outcome::NoRule);
  auto match = state.catalog->find(req.api_version, req.kind);
  if (!match.definition && match.uncovered_version_of.empty()) return allow(Outcome::UnknownKind);
  if (controller && state.catalog->part_of_a_workload(controller->api_version, controller->kind))
    return allow(Outcome::Controlled);
  if (owners.pod && req.kind == "Pod" && req.api_version == "v1") return allow(Outcome::Controlled);

  // The mapper cannot make sense of this object: the rule's failure policy decides.
  std::vector<std::string> warnings;
  auto not_understood = [&](const std::string& why) {
    result.message = why;
    if (rule->failure_policy == FailurePolicy::Fail) {
      result.outcome = Outcome::FailedClosed;
      result.body = response(req.uid, "", why, 422, warnings);
      return result;
    }
    warnings.push_back(why + " (left as it is; failure policy Ignore)");
    return allow(Outcome::NotUnderstood, warnings);
  };
  // A served version no definition reads: another version's paths would find other fields, or none.
  if (!match.definition)
    return not_understood("workload-map cannot understand " + std::string(req.api_version) + " " +
                          std::string(req.kind) + ": no definition reads this version (definitions read " +
                          match.uncovered_version_of + ")");

  ObjectDocument doc(req.object);
  ViewOptions options =
      rule->profile ? view_options_for(*rule->profile, req.group, req.kind, !controller) : ViewOptions{};
  options.catalog = state.catalog.get();
  options.references = state.references.get();
  options.namespace_name = std::string(req.namespace_name);
  WorkloadView view = build_view(*match.definition, doc, options);
  if (!view.warnings.empty())
    return not_understood("workload-map cannot understand " + display_name(view, req.namespace_name) + ": " +
                          view.warnings.front());

  Reviewer reviewer(req, *rule, view, doc, !controller);
  if (endpoint == Endpoint::Validate) {
    if (!rule->limits.refuse_unmeetable_gangs)
      for (auto& w : reviewer.unmeetable()) warnings.push_back(std::move(w));
    auto violations = reviewer.violations();
    if (violations.empty()) return allow(Outcome::Allowed, warnings);
    std::string denial;
    for (const auto& v : violations) denial += (denial.empty() ? "" : "; ") + v;
    result.outcome = Outcome::Denied;
    result.message = denial;
    result.body = response(req.uid, "", denial, 403, warnings);
    return result;
  }
  if (req.operation == "UPDATE" && !rule->mutate_on_update) return allow(Outcome::Skipped, warnings);
  std::string patch = reviewer.patch(warnings);
  result.outcome = patch.empty() ? Outcome::Unchanged : Outcome::Patched;
  result.body = response(req.uid, patch, "", 0, warnings);
  return result;
}

}  // namespace wm::webhook
