// The Karta source without an API server: the condition each Karta earns (the catalog's own files and a broken one),
// the status write that shows it, and what the source does with a fake API server's answers.
#include "controllers/karta_source.h"

#include <catch2/catch.hpp>

#include "base/json/json_writer.h"
#include "controllers/karta_check.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

// The Karta in `path` as the API server returns it: at `generation`, with a uid.
std::string karta_json(const std::string& yaml, long long generation) {
  auto objects = test::parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  std::string json = json::element_json(objects.front().root);
  return json.insert(json.find("\"metadata\":{") + 12,
                     R"("uid":"karta-uid","generation":)" + std::to_string(generation) + ",");
}

std::string broken_karta() {
  return test::read_file(test::source_path("tests/fixtures/broken-definitions/gang-member-undefined.yaml"));
}

// The same Karta with its pod group's member defined: example.com/v1 Thing, a kind no built-in definition reads.
std::string thing_karta() {
  std::string yaml = broken_karta();
  yaml.replace(yaml.find("componentName: workers"), 22, "componentName: root");
  return yaml;
}

}  // namespace

TEST_CASE("Kartas: every catalog file applied as a Karta is accepted, and says which kind is in force") {
  for (const auto& file : test::yaml_files_under(test::source_path("definitions"))) {
    CAPTURE(file);
    const std::string json = karta_json(test::read_file(test::source_path("definitions/" + file)), 1);
    const KartaVerdict verdict = check_karta(json, file, 1, -1);
    REQUIRE(verdict.accepted);
    CHECK(verdict.condition.accepted());
    CHECK(verdict.condition.reason == "Accepted");
    CHECK(verdict.condition.message == "in force: " + verdict.accepted->gvk.str());
    CHECK(verdict.condition.observed_generation == 1);
  }
}

TEST_CASE("Kartas: a broken Karta is refused with lint's message, and the generation still in force is named") {
  const std::string json = karta_json(broken_karta(), 4);
  const KartaVerdict first = check_karta(json, "broken", 4, -1);
  CHECK_FALSE(first.accepted);
  CHECK(first.condition.status == "False");
  CHECK(first.condition.reason == "Invalid");
  CHECK(first.problems.find("pod-group member component 'workers' is not defined") != std::string::npos);
  CHECK(first.problems.rfind("Karta broken", 0) == 0);  // named as lint names a file
  CHECK(first.condition.message.find("stays in force") == std::string::npos);
  const KartaVerdict later = check_karta(json, "broken", 4, 3);
  CHECK(later.condition.message.find("The last accepted generation (3) stays in force.") != std::string::npos);
}

TEST_CASE("Kartas: the status is written only when it differs, and its transition time moves with its status") {
  KartaCondition accepted{"True", "Accepted", "in force: example.com/v1 Thing", "", 2};
  KartaCondition shown = accepted;
  shown.last_transition = "2026-01-01T00:00:00Z";
  CHECK_FALSE(plan_karta_status("thing", accepted, shown, "2026-12-06T00:00:00Z"));
  shown.observed_generation = 1;  // a new generation, still accepted: the time stays, no transition
  auto write = plan_karta_status("thing", accepted, shown, "2026-12-06T00:00:00Z");
  REQUIRE(write);
  CHECK_FALSE(write->transition);
  simdjson::dom::parser parser;
  auto body = parser.parse(write->body).value();
  CHECK(test::string_at(body, "/status/conditions/0/type") == "workload-map.io/Accepted");
  CHECK(test::string_at(body, "/status/conditions/0/lastTransitionTime") == "2026-01-01T00:00:00Z");
  CHECK(body.at_pointer("/status/conditions/0/observedGeneration").get_int64().value() == 2);
  CHECK(test::string_at(body, "/metadata/name") == "thing");
  const KartaCondition refused{"False", "Invalid", "broken", "", 3};
  write = plan_karta_status("thing", refused, shown, "2026-12-06T00:00:00Z");
  REQUIRE(write);
  CHECK(write->transition);
  simdjson::dom::parser parser2;
  CHECK(test::string_at(parser2.parse(write->body).value(), "/status/conditions/0/lastTransitionTime") ==
        "2026-12-06T00:00:00Z");
}

TEST_CASE("Kartas: the source puts an accepted Karta in force, writes its status and labels, and retries a refusal") {
  test::FakeCluster cluster(test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")),
                                                    "karta-source-policy.yaml"));
  const std::string kartas = "/apis/run.ai/v1alpha1/kartas/";
  cluster.api.answer("PATCH", kartas, 200);
  KartaSource source(cluster.context());
  CHECK_FALSE(cluster.state->current().catalog->find("example.com/v1", "Thing").definition);
  source.replaced({karta_json(thing_karta(), 1)});
  CHECK(cluster.state->current().catalog->find("example.com/v1", "Thing").definition);
  REQUIRE(source.write_status("broken"));  // the fixture's name
  const auto status = cluster.api.calls("PATCH", kartas + "broken/status");
  REQUIRE(status.size() == 1);
  CHECK(status[0].target == kartas + "broken/status?fieldManager=workload-map&force=true");
  CHECK(status[0].body.find(R"("status":"True")") != std::string::npos);
  // It lacks the labels KAI looks Kartas up by: written under a field manager of their own.
  REQUIRE(source.write_labels("broken"));
  const auto labels = cluster.api.calls("PATCH", kartas + "broken?fieldManager=workload-map-kai-lookup");
  REQUIRE(labels.size() == 1);
  CHECK(labels[0].body.find("run.ai/karta-kind") != std::string::npos);
  CHECK(source.write_labels("broken"));  // written: not again
  CHECK(cluster.api.calls("PATCH", kartas + "broken?").size() == 1);
  // The next generation is broken: it is refused, the accepted one stays in force, and a refused write is retried.
  source.changed(false, karta_json(broken_karta(), 2));
  CHECK(cluster.state->current().catalog->find("example.com/v1", "Thing").definition);
  cluster.api.answer("PATCH", kartas, 403, R"({"message":"forbidden"})");
  const auto refused = source.write_status("broken");
  REQUIRE_FALSE(refused);
  CHECK(retryable(refused.code()));
  // Deleted: no longer in force.
  source.changed(true, karta_json(broken_karta(), 2));
  CHECK_FALSE(cluster.state->current().catalog->find("example.com/v1", "Thing").definition);
}

}  // namespace wm::controllers
