#include "controllers/karta_check.h"

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "mapper/catalog/definition_loader.h"

namespace wm::controllers {

namespace {
constexpr size_t kMaxMessage = 32768;  // the CRD's maxLength for a condition message
}  // namespace

KartaCondition shown_condition(simdjson::dom::element karta) {
  KartaCondition c;
  simdjson::dom::array conditions;
  if (karta.at_pointer("/status/conditions").get_array().get(conditions) != simdjson::SUCCESS) return c;
  for (auto entry : conditions) {
    if (json::string_at(entry, "/type") != kAcceptedCondition) continue;
    c.status = json::string_at(entry, "/status");
    c.reason = json::string_at(entry, "/reason");
    c.message = json::string_at(entry, "/message");
    c.last_transition = json::string_at(entry, "/lastTransitionTime");
    int64_t g = -1;
    if (entry["observedGeneration"].get_int64().get(g) != simdjson::SUCCESS) g = -1;
    c.observed_generation = g;
  }
  return c;
}

KartaVerdict check_karta(const std::string& object_json, const std::string& name, long long generation,
                         long long live_generation) {
  KartaVerdict verdict;
  const std::string file = "Karta " + name;
  catalog::DefinitionLoad load = catalog::load_definitions(object_json, file);
  KartaCondition& c = verdict.condition;
  c.observed_generation = generation;
  if (load.errors.empty() && load.definitions.size() == 1) {
    verdict.accepted = std::make_shared<const catalog::Definition>(std::move(load.definitions.front()));
    c.status = "True";
    c.reason = "Accepted";
    c.message = "in force: " + verdict.accepted->gvk.str();
    return verdict;
  }
  for (const auto& p : load.errors) verdict.problems += (verdict.problems.empty() ? "" : "\n") + p.str();
  if (verdict.problems.empty()) verdict.problems = file + ": holds no definition";
  c.status = "False";
  c.reason = "Invalid";
  c.message =
      verdict.problems.substr(0, kMaxMessage - 200) +
      (live_generation >= 0 ? "\nThe last accepted generation (" + std::to_string(live_generation) + ") stays in force."
                            : std::string());
  return verdict;
}

std::optional<KartaStatusWrite> plan_karta_status(const std::string& name, const KartaCondition& wanted,
                                                  const KartaCondition& shown, const std::string& now) {
  if (wanted.same_as(shown)) return std::nullopt;
  const std::string& since =
      shown.status == wanted.status && !shown.last_transition.empty() ? shown.last_transition : now;
  json::JsonWriter body;
  body.begin_object().field("apiVersion", "run.ai/v1alpha1").field("kind", "Karta");
  body.key("metadata").begin_object().field("name", name).end_object();
  body.key("status").begin_object().key("conditions").begin_array().begin_object();
  body.field("type", kAcceptedCondition).field("status", wanted.status).field("reason", wanted.reason);
  body.field("message", wanted.message).field("observedGeneration", wanted.observed_generation);
  body.field("lastTransitionTime", since);
  body.end_object().end_array().end_object().end_object();
  return KartaStatusWrite{body.take(), shown.status != wanted.status || shown.message != wanted.message};
}

}  // namespace wm::controllers
