#include "webhook/admission.h"

#include <functional>
#include <new>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "mapper/expr/json_patch_apply.h"
#include "mapper/view/workload_view.h"
#include "policy/owners.h"
#include "policy/profiled_view.h"
#include "webhook/admission_codec.h"
#include "webhook/pod_group_name.h"
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
    case Outcome::PodGroupNamed:
      return "pod-group-named";
    case Outcome::NotUnderstood:
      return "not-understood";
    case Outcome::FailedClosed:
      return "failed-closed";
    case Outcome::BadRequest:
      return "bad-request";
    case Outcome::Failed:
      return "failed";
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

// The answer to one review, as it is being decided.
class Answer {
 public:
  explicit Answer(const AdmissionRequest& req) : req_(req) {
    result_.kind = std::string(req.kind);
    result_.operation = std::string(req.operation);
    result_.uid = std::string(req.uid);
  }

  AdmissionResult give(Outcome outcome, const Decision& decision, std::string message = {}) {
    result_.outcome = outcome;
    result_.message = std::move(message);
    result_.body = encode_response(req_.uid, decision);
    return std::move(result_);
  }

  AdmissionResult allow(Outcome outcome, std::vector<std::string> warnings = {}) {
    return give(outcome, Decision::allowed().with_warnings(std::move(warnings)));
  }

  // The mapper cannot make sense of this object: the rule's failure policy decides.
  AdmissionResult not_understood(const policy::Rule& rule, const std::string& why) {
    if (rule.failure_policy == policy::FailurePolicy::Fail)
      return give(Outcome::FailedClosed, Decision::denied(422, why), why);
    return give(Outcome::NotUnderstood,
                Decision::allowed().with_warnings({why + " (left as it is; failure policy Ignore)"}), why);
  }

 private:
  const AdmissionRequest& req_;
  AdmissionResult result_;
};

bool creates_a_pod(const AdmissionRequest& req) {
  return req.operation == "CREATE" && req.kind == "Pod" && req.api_version == "v1";
}

// A pod of a gang repeated per replica finishes the gang name its workload's admission wrote, whatever rule its own
// kind matches: that admission decided. Nothing when `req` is not such a pod.
std::optional<AdmissionResult> replica_gang(const AdmissionRequest& req, const policy::Owners& owners,
                                            const catalog::Catalog& catalog, Answer& answer) {
  if (!owners.controller || owners.pod) return std::nullopt;
  auto named = name_replica_gang(req.object, catalog);
  if (!named || !catalog.part_of_a_workload(owners.controller->api_version, owners.controller->kind))
    return std::nullopt;
  std::string patch = named->patch;
  // The PodGroup its workload named, as this replica's: set once its key is known (the API server calls again).
  const std::string_view group = pod_group_annotation(req.object);
  if (creates_a_pod(req) && !group.empty() && (group != named->gang || !named->suffix.empty()))
    if (auto field = pod_group_name_patch(req.object, std::string(group) + (group == named->gang ? named->suffix : "")))
      patch = joined_patches(patch, *field);
  const Outcome outcome = patch.empty() ? Outcome::Controlled : Outcome::ReplicaGang;
  return answer.give(outcome, Decision::allowed().with_patch(std::move(patch)).with_warnings(named->warnings));
}

// A pod whose workload's admission named its PodGroup (kPodGroupAnnotation) joins it in spec.schedulingGroup, whatever
// rule its own kind matches. Nothing when `req` is not such a pod.
std::optional<AdmissionResult> pod_group(const AdmissionRequest& req, const policy::Owners& owners, Answer& answer) {
  if (!owners.controller || owners.pod || !creates_a_pod(req)) return std::nullopt;
  auto patch = pod_group_name_patch(req.object, pod_group_annotation(req.object));
  if (!patch) return std::nullopt;
  return answer.give(Outcome::PodGroupNamed, Decision::allowed().with_patch(std::move(*patch)));
}

// A pod admitted as a workload of its own, whose patch names its PodGroup in the annotation: the field too.
std::string with_own_pod_group(const AdmissionRequest& req, std::string patch, std::vector<std::string>& warnings) {
  if (!creates_a_pod(req) || patch.find(kPodGroupAnnotation) == std::string::npos) return patch;
  auto patched = expr::apply_json_patch(json::element_json(req.object), patch);
  simdjson::dom::parser parser;
  simdjson::dom::element pod;
  if (!patched || parser.parse(*patched).get(pod) != simdjson::SUCCESS) {
    warnings.push_back("its PodGroup could not be named in spec.schedulingGroup: " +
                       (patched ? std::string("the patched pod is not JSON") : patched.error()));
    return patch;
  }
  if (auto field = pod_group_name_patch(pod, pod_group_annotation(pod))) return joined_patches(patch, *field);
  return patch;
}

// What the rule says of a workload the mapper understood.
AdmissionResult decide(Endpoint endpoint, const AdmissionRequest& req, const policy::Rule& rule, Reviewer& reviewer,
                       const policy::AdmissionState& state, Answer& answer) {
  std::vector<std::string> warnings;
  // On both endpoints, since either may be the one registered; the API server keeps one of equal warnings.
  if (!rule.limits.refuse_invalid_pods)
    for (auto& w : reviewer.invalid_pods()) warnings.push_back(std::move(w));
  if (endpoint == Endpoint::Validate) {
    if (!rule.limits.refuse_unmeetable_gangs)
      for (auto& w : reviewer.unmeetable()) warnings.push_back(std::move(w));
    if (!rule.limits.refuse_dropped_topology)
      for (auto& w : reviewer.dropped_topology()) warnings.push_back(std::move(w));
    for (auto& u : reviewer.uncounted_devices()) warnings.push_back(std::move(u));
    if (auto missing = reviewer.missing_queue(state.references.get())) warnings.push_back(std::move(*missing));
    if (auto missing = reviewer.missing_topology(state.references.get())) warnings.push_back(std::move(*missing));
    if (auto unserved = reviewer.unserved_pod_group(state.references.get())) warnings.push_back(std::move(*unserved));
    if (auto alone = reviewer.no_workload_object()) warnings.push_back(std::move(*alone));
    auto violations = reviewer.violations();
    reviewer.unfit_topology(state.references.get(), warnings, violations);
    if (violations.empty()) return answer.allow(Outcome::Allowed, std::move(warnings));
    std::string denial;
    for (const auto& v : violations) denial += (denial.empty() ? "" : "; ") + v;
    return answer.give(Outcome::Denied, Decision::denied(403, denial).with_warnings(std::move(warnings)), denial);
  }
  if (req.operation == "UPDATE" && !rule.mutate_on_update) return answer.allow(Outcome::Skipped);
  std::string patch = with_own_pod_group(req, reviewer.patch(warnings), warnings);
  const Outcome outcome = patch.empty() ? Outcome::Unchanged : Outcome::Patched;
  return answer.give(outcome, Decision::allowed().with_patch(std::move(patch)).with_warnings(std::move(warnings)));
}

AdmissionResult review_unguarded(Endpoint endpoint, std::string_view body, const policy::AdmissionState& state,
                                 simdjson::dom::parser& parser) {
  Result<AdmissionRequest> decoded = decode_review(body, parser);
  if (!decoded) return bad_request(decoded.error());
  const AdmissionRequest& req = *decoded;
  Answer answer(req);
  if (req.operation != "CREATE" && req.operation != "UPDATE") return answer.allow(Outcome::Skipped);
  const policy::Owners owners = policy::owners_of(req.object);
  const std::optional<policy::Controller>& controller = owners.controller;
  if (endpoint == Endpoint::Mutate) {
    if (auto replica = replica_gang(req, owners, *state.catalog, answer)) return std::move(*replica);
    if (auto named = pod_group(req, owners, answer)) return std::move(*named);
  }

  const policy::Rule* rule = state.policy->match(req.namespace_name, req.group, req.kind);
  if (!rule) return answer.allow(Outcome::NoRule);
  auto match = state.catalog->find(req.api_version, req.kind);
  if (!match.definition && match.uncovered_version_of.empty()) return answer.allow(Outcome::UnknownKind);
  if (controller && state.catalog->part_of_its_owner(controller->api_version, controller->kind, req.group, req.kind))
    return answer.allow(Outcome::Controlled);
  if (owners.pod && req.kind == "Pod" && req.api_version == "v1") return answer.allow(Outcome::Controlled);
  // A served version no definition reads: another version's paths would find other fields, or none.
  if (!match.definition)
    return answer.not_understood(
        *rule, "workload-map cannot understand " + std::string(req.api_version) + " " + std::string(req.kind) +
                   ": no definition reads this version (definitions read " + match.uncovered_version_of + ")");

  json::ObjectDocument doc(req.object);
  policy::ProfiledViewRequest request;
  request.profile = rule->profile;
  request.namespace_name = req.namespace_name;
  request.standalone = !controller;
  request.topology = rule->topology ? &*rule->topology : nullptr;
  policy::ProfiledView profiled = policy::profiled_view(state, *match.definition, doc, request);
  const view::WorkloadView& view = profiled.view;
  if (!view.problems.empty())
    return answer.not_understood(*rule, "workload-map cannot understand " + display_name(view, req.namespace_name) +
                                            ": " + view.problems.front());
  Reviewer reviewer(req, *rule, view, doc, *profiled.edits);
  return decide(endpoint, req, *rule, reviewer, state, answer);
}

AdmissionResult failed_review(std::string_view body, const policy::AdmissionState& state, simdjson::dom::parser& parser,
                              std::string_view what) noexcept {
  try {
    Result<AdmissionRequest> decoded = decode_review(body, parser);
    if (!decoded) return bad_request(decoded.error());
    const AdmissionRequest& req = *decoded;
    Answer answer(req);
    const std::string why = "workload-map failed while reviewing " + std::string(req.kind) + " " +
                            std::string(req.namespace_name) + (req.namespace_name.empty() ? "" : "/") +
                            std::string(json::string_at(req.object, "/metadata/name")) + ": " + std::string(what);
    const policy::Rule* rule = state.policy->match(req.namespace_name, req.group, req.kind);
    AdmissionResult result = rule ? answer.not_understood(*rule, why) : answer.allow(Outcome::NoRule);
    result.outcome = Outcome::Failed;
    result.message = why;
    return result;
  } catch (...) {
    AdmissionResult result;
    result.http_status = 500;
    result.outcome = Outcome::Failed;
    result.message = "workload-map failed while reviewing: " + std::string(what);
    result.body = result.message;
    return result;
  }
}

}  // namespace

AdmissionResult guarded(std::string_view body, const policy::AdmissionState& state, simdjson::dom::parser& parser,
                        const std::function<AdmissionResult()>& review) noexcept {
  // controller-runtime turns a handler's panic into an answer and a count; so does this: an exception from yaml-cpp, a
  // container's at() or an allocation leaves one review failed under its rule's failure policy, never the process.
  try {
    return review();
  } catch (const std::bad_alloc&) {
    return failed_review(body, state, parser, "out of memory");
  } catch (const std::exception& e) {
    return failed_review(body, state, parser, e.what());
  } catch (...) {
    return failed_review(body, state, parser, "an unknown exception");
  }
}

AdmissionResult review(Endpoint endpoint, std::string_view body, const policy::AdmissionState& state,
                       simdjson::dom::parser& parser) {
  return guarded(body, state, parser, [&] { return review_unguarded(endpoint, body, state, parser); });
}

}  // namespace wm::webhook
