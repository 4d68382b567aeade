#include "webhook/admission.h"

#include "mapper/json/json_read.h"
#include "mapper/view/workload_view.h"
#include "webhook/admission_codec.h"
#include "webhook/replica_gang.h"
#include "webhook/reviewer.h"

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

AdmissionResult bad_request(std::string reason) {
  AdmissionResult r;
  r.http_status = 400;
  r.outcome = Outcome::BadRequest;
  r.message = reason;
  r.body = std::move(reason);
  return r;
}

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

}  // namespace

AdmissionResult review(Endpoint endpoint, std::string_view body, const AdmissionState& state,
                       simdjson::dom::parser& parser) {
  AdmissionRequest req;
  if (auto bad = decode_review(body, parser, req)) return bad_request(std::move(*bad));
  AdmissionResult result;
  result.kind = std::string(req.kind);
  result.operation = std::string(req.operation);
  auto answer = [&](Outcome outcome, const Decision& decision) {
    result.outcome = outcome;
    result.body = encode_response(req.uid, decision);
    return result;
  };
  auto allow = [&](Outcome outcome, std::vector<std::string> warnings = {}) {
    return answer(outcome, Decision::allowed().with_warnings(std::move(warnings)));
  };
  if (req.operation != "CREATE" && req.operation != "UPDATE") return allow(Outcome::Skipped);
  const Owners owners = owners_of(req.object);
  const std::optional<Controller>& controller = owners.controller;

  // A pod of a gang repeated per replica finishes the gang name its workload's admission wrote, whatever rule its
  // own kind matches: that admission decided.
  if (endpoint == Endpoint::Mutate && controller && !owners.pod)
    if (auto named = name_replica_gang(req.object, *state.catalog);
        named && state.catalog->part_of_a_workload(controller->api_version, controller->kind)) {
      return answer(named->patch.empty() ? Outcome::Controlled : Outcome::ReplicaGang,
                    Decision::allowed().with_patch(named->patch).with_warnings(named->warnings));
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
    if (rule->failure_policy == FailurePolicy::Fail)
      return answer(Outcome::FailedClosed, Decision::denied(422, why).with_warnings(warnings));
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
  options.namespace_name = req.namespace_name;
  WorkloadView view = build_view(*match.definition, doc, options);
  if (!view.problems.empty())
    return not_understood("workload-map cannot understand " + display_name(view, req.namespace_name) + ": " +
                          view.problems.front());

  Reviewer reviewer(req, *rule, view, doc, !controller);
  if (endpoint == Endpoint::Validate) {
    if (!rule->limits.refuse_unmeetable_gangs)
      for (auto& w : reviewer.unmeetable()) warnings.push_back(std::move(w));
    auto violations = reviewer.violations();
    if (violations.empty()) return allow(Outcome::Allowed, warnings);
    std::string denial;
    for (const auto& v : violations) denial += (denial.empty() ? "" : "; ") + v;
    result.message = denial;
    return answer(Outcome::Denied, Decision::denied(403, denial).with_warnings(std::move(warnings)));
  }
  if (req.operation == "UPDATE" && !rule->mutate_on_update) return allow(Outcome::Skipped, warnings);
  std::string patch = reviewer.patch(warnings);
  const Outcome outcome = patch.empty() ? Outcome::Unchanged : Outcome::Patched;
  return answer(outcome, Decision::allowed().with_patch(std::move(patch)).with_warnings(std::move(warnings)));
}

}  // namespace wm::webhook
