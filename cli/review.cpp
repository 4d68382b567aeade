// review: what the webhook would answer for a manifest, offline. The same review() the server runs: mutate, then
// validate the mutated object (the API server's order), then the gangs and PodGroups of the rule's profile.
#include <algorithm>
#include <boost/beast/core/detail/base64.hpp>
#include <iostream>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "cli/admission_request.h"
#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "mapper/expr/json_patch_apply.h"
#include "mapper/view/gangs.h"
#include "policy/profiled_view.h"
#include "webhook/admission.h"

namespace wm::cli {

namespace {

struct ReviewOptions {
  ReviewRequestOptions request;
  std::vector<std::string> dirs, with;
  std::string policy_file, format = "text";
};

// The patch as admission encoded it, with the same Beast base64 (webhook/admission.cpp).
std::string base64_decode(std::string_view text) {
  namespace base64 = boost::beast::detail::base64;
  std::string out(base64::decoded_size(text.size()), '\0');
  out.resize(base64::decode(out.data(), text.data(), text.size()).first);
  return out;
}

// The parts of an AdmissionReview response that a person reads.
struct Answer {
  bool allowed = true;
  std::string message, patch;  // patch: JSON Patch text, "" for none
  std::vector<std::string> warnings;
};

std::optional<Answer> answer_of(const webhook::AdmissionResult& result, simdjson::dom::parser& parser) {
  simdjson::dom::element response;
  if (result.http_status != 200 || parser.parse(result.body).at_pointer("/response").get(response)) {
    std::cerr << "review: the webhook could not read the request: " << result.body << "\n";
    return std::nullopt;
  }
  Answer a;
  if (response["allowed"].get_bool().get(a.allowed)) a.allowed = false;
  a.message = std::string(json::string_at(response, "/status/message"));
  std::string_view patch;
  if (!response["patch"].get_string().get(patch)) a.patch = base64_decode(patch);
  simdjson::dom::array warnings;
  if (!response["warnings"].get_array().get(warnings))
    for (auto w : warnings) {
      std::string_view text;
      if (!w.get_string().get(text)) a.warnings.emplace_back(text);
    }
  return a;
}

// Both endpoints' warnings, each once: the API server keeps one of equal warnings, and so does what shows them here.
std::vector<std::string> warnings_of(const Answer& mutate, const Answer& validate) {
  std::vector<std::string> out;
  for (const auto* answer : {&mutate, &validate})
    for (const auto& w : answer->warnings)
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  return out;
}

void print_json(const Answer& mutate, const Answer& validate, const std::string& rule, const std::string& profile,
                const view::WorkloadView* view, const policy::GangObjects& objects) {
  const std::vector<std::string>& pod_groups = objects.pod_groups;
  const bool allowed = mutate.allowed && validate.allowed;
  std::string out = R"({"allowed":)" + std::string(allowed ? "true" : "false");
  out += R"(,"message":)" + json::json_string(!mutate.allowed ? mutate.message : validate.message);
  out += R"(,"rule":)" + json::json_string(rule) + R"(,"profile":)" + json::json_string(profile);
  out += R"(,"patch":)" + (mutate.patch.empty() ? "[]" : mutate.patch);
  out += R"(,"warnings":[)";
  bool first = true;
  for (const auto& w : warnings_of(mutate, validate)) {
    out += (first ? "" : ",") + json::json_string(w);
    first = false;
  }
  out += R"(],"gangs":[)";
  if (view)
    for (size_t i = 0; i < view->gangs.size(); ++i) {
      const view::GangGroupView& g = view->gangs[i];
      out += (i ? "," : "") + std::string(R"({"name":)") + json::json_string(g.name) + R"(,"minMember":)" +
             std::to_string(g.min_member) + R"(,"pods":)" + std::to_string(g.pods) + "}";
    }
  out += R"(],"podGroups":[)";
  for (size_t i = 0; i < pod_groups.size(); ++i) out += (i ? "," : "") + pod_groups[i];
  out += "]";
  if (!objects.workload.empty()) out += R"(,"workload":)" + objects.workload;
  std::cout << out << "}\n";
}

void print_text(const Answer& mutate, const Answer& validate, const std::string& rule, const std::string& profile,
                const view::WorkloadView* view, const policy::GangObjects& objects) {
  if (!mutate.allowed)
    std::cout << "refused at mutation: " << mutate.message << "\n";
  else if (!validate.allowed)
    std::cout << "refused: " << validate.message << "\n";
  else
    std::cout << "allowed\n";
  std::cout << "rule: " << (rule.empty() ? "(none matches)" : rule) << (profile.empty() ? "" : ", profile " + profile)
            << "\n";
  std::cout << "patch: " << (mutate.patch.empty() ? "(none)" : mutate.patch) << "\n";
  if (view)
    for (const auto& g : view->gangs)
      std::cout << "gang " << g.name << ": min member " << g.min_member << " of " << g.pods << " pods\n";
  if (!objects.workload.empty()) std::cout << "workload " << objects.workload << "\n";
  for (const auto& pg : objects.pod_groups) std::cout << "podGroup " << pg << "\n";
  for (const auto& w : warnings_of(mutate, validate)) std::cout << "warning: " << w << "\n";
}

// The webhook's two answers: mutate, then validate the object as mutated (the API server's order). `mutated` gets the
// object the validating webhook saw.
std::optional<std::pair<Answer, Answer>> answers(const ReviewOptions& o, const std::string& object,
                                                 const policy::AdmissionState& state, std::string& mutated) {
  simdjson::dom::parser parser, answers;
  auto request = admission_review_json(o.request, object);
  if (!request) return std::nullopt;
  auto mutate = answer_of(webhook::review(webhook::Endpoint::Mutate, *request, state, parser), answers);
  if (!mutate) return std::nullopt;
  mutated = object;
  if (!mutate->patch.empty()) {
    auto patched = expr::apply_json_patch(object, mutate->patch);
    if (!patched) {
      std::cerr << "review: the webhook's patch does not apply: " << patched.error() << "\n";
      return std::nullopt;
    }
    mutated = std::move(*patched);
  }
  request = admission_review_json(o.request, mutated);
  if (!request) return std::nullopt;
  auto validate = answer_of(webhook::review(webhook::Endpoint::Validate, *request, state, parser), answers);
  if (!validate) return std::nullopt;
  return std::pair{std::move(*mutate), std::move(*validate)};
}

// The gangs and the objects the rule's profile makes for them, as admission names them.
struct ProfileGangs {
  std::string rule, profile;
  std::optional<policy::ProfiledView> profiled;
  policy::GangObjects objects;
};

ProfileGangs profile_gangs(const policy::AdmissionState& state, simdjson::dom::element root,
                           std::string namespace_name) {
  const auto [group, version] = json::split_api_version(json::string_at(root, "/apiVersion"));
  const std::string kind(json::string_at(root, "/kind"));
  if (namespace_name.empty()) namespace_name = std::string(json::string_at(root, "/metadata/namespace"));
  if (namespace_name.empty()) namespace_name = "default";
  ProfileGangs out;
  const policy::Rule* rule = state.policy->match(namespace_name, group, kind);
  const catalog::Catalog::Match match = state.catalog->find(json::string_at(root, "/apiVersion"), kind);
  if (rule) out.rule = rule->name;
  if (!rule || !rule->profile) return out;
  out.profile = rule->profile->name;
  if (!match.definition) return out;
  json::ObjectDocument doc(root);
  policy::ProfiledViewRequest request;
  request.profile = rule->profile;
  request.namespace_name = namespace_name;
  request.inspect_detail = true;
  out.profiled = policy::profiled_view(state, *match.definition, doc, request);
  std::string_view queue;
  if (root.at_pointer("/metadata/annotations").at_key(kQueueAnnotation).get_string().get(queue)) queue = {};
  const view::WorkloadView& view = out.profiled->view;
  out.objects = policy::gang_objects(*out.profiled, *rule->profile, root, view.given_name(), std::string(queue));
  view::name_gangs_as_admitted(out.profiled->view);
  return out;
}

int review(const ReviewOptions& o) {
  auto state = load_state(o.dirs, o.policy_file, o.with, {o.request.file});
  auto object = state ? first_object_json(o.request.file, state->catalog.get()) : std::nullopt;
  if (!object) return kInvalid;
  std::string mutated;
  auto answered = answers(o, *object, *state, mutated);
  if (!answered) return kInvalid;
  const auto& [mutate, validate] = *answered;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(mutated).get(root)) return kInvalid;
  const ProfileGangs gangs = profile_gangs(*state, root, o.request.namespace_name);
  const view::WorkloadView* view = gangs.profiled ? &gangs.profiled->view : nullptr;
  (o.format == "json" ? print_json : print_text)(mutate, validate, gangs.rule, gangs.profile, view, gangs.objects);
  return mutate.allowed && validate.allowed ? kOk : kInvalid;
}

}  // namespace

void add_review(CLI::App& app, int& status) {
  auto o = std::make_shared<ReviewOptions>();
  CLI::App* command = app.add_subcommand(
      "review",
      "what the webhook would answer for FILE's first workload (its first object of a kind the catalog reads, the "
      "others held as what it refers to), offline: allowed or refused, the patch, the gangs and the PodGroups (exit 1 "
      "when refused)");
  add_request_options(*command, o->request);
  command->add_option("--policy", o->policy_file, "the policy (default: the built-in one)");
  command->add_option("-o,--output", o->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  add_definitions_option(*command, o->dirs);
  add_with_option(*command, o->with);
  command->callback([o, &status] { status = review(*o); });
}

}  // namespace wm::cli
