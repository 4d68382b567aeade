// The webhook rules controller without an API server: which resources it routes, the patch that adds what the
// shipped configurations lack, and what it does with a fake API server's answers.
#include "controllers/webhook_rules.h"

#include <catch2/catch.hpp>

#include "base/json/json_writer.h"
#include "tests/support/result_matchers.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

// The shipped MutatingWebhookConfiguration (manifests/base/webhooks.yaml), as the API server returns it.
std::string shipped_configuration() {
  auto objects = test::parse_file(test::source_path("manifests/base/webhooks.yaml"));
  REQUIRE(!objects.empty());
  REQUIRE(objects.front().kind == "MutatingWebhookConfiguration");
  std::string json = json::element_json(objects.front().root);
  return json.insert(json.find("\"metadata\":{") + 12, R"("resourceVersion":"42",)");
}

}  // namespace

TEST_CASE("Webhook rules: every catalog kind the API server serves is routed, and one not served is looked for again") {
  const auto routed = resources_to_route(
      test::builtin_catalog(),
      [](const std::string& group, const std::string& version, const std::string& kind) -> Result<kube::Resource> {
        if (kind == "SparkApplication") return Error{"not served", ErrorCode::NotFound};
        std::string plural = kind;
        for (auto& c : plural) c = static_cast<char>(std::tolower(c));
        return kube::Resource{group, version, kind, plural + "s", true};
      });
  CHECK_FALSE(routed.complete);
  CHECK(routed.resources.count({"jobset.x-k8s.io", "jobsets"}));
  CHECK(routed.resources.count({"apps", "deployments"}));
  CHECK_FALSE(routed.resources.count({"sparkoperator.k8s.io", "sparkapplications"}));
}

TEST_CASE("Webhook rules: the shipped configuration lacks only a new kind, added under a resourceVersion test") {
  simdjson::dom::parser parser;
  const std::string config_json = shipped_configuration();
  const auto config = parser.parse(config_json).value();
  CHECK(missing_rules_patch(config, {{"jobset.x-k8s.io", "jobsets"}, {"kubeflow.org", "pytorchjobs"}}).added.empty());
  const RulesPatch patch = missing_rules_patch(config, {{"jobset.x-k8s.io", "jobsets"}, {"example.com", "widgets"}});
  CHECK(patch.added == "widgets.example.com");
  simdjson::dom::parser patch_parser;
  const auto ops = patch_parser.parse(patch.patch).value();
  CHECK(test::string_at(ops, "/0/op") == "test");
  CHECK(test::string_at(ops, "/0/value") == "42");
  CHECK(test::string_at(ops, "/1/op") == "add");
  CHECK(test::string_at(ops, "/1/path") == "/webhooks/0/rules/-");
  CHECK(test::string_at(ops, "/1/value/apiGroups/0") == "example.com");
  CHECK(test::string_at(ops, "/1/value/resources/0") == "widgets");
  CHECK(test::string_at(ops, "/1/value/operations/1") == "UPDATE");
}

TEST_CASE("Webhook rules: a webhook with no rules gets its list first") {
  simdjson::dom::parser parser;
  const std::string config_json = R"({"metadata":{"name":"w","resourceVersion":"1"},"webhooks":[{"name":"a"}]})";
  const auto config = parser.parse(config_json).value();
  const RulesPatch patch = missing_rules_patch(config, {{"", "pods"}});
  CHECK(patch.added == "pods");
  simdjson::dom::parser patch_parser;
  const auto ops = patch_parser.parse(patch.patch).value();
  CHECK(test::string_at(ops, "/1/path") == "/webhooks/0/rules");
  CHECK(test::string_at(ops, "/2/path") == "/webhooks/0/rules/-");
  CHECK(test::string_at(ops, "/2/value/apiGroups/0") == "");
}

TEST_CASE("Webhook rules: the controller patches what is missing, skips what is not installed, retries a conflict") {
  test::FakeCluster cluster(test::state_with_policy(test::read_file(test::source_path("manifests/base/policy.yaml")),
                                                    "webhook-rules-policy.yaml"));
  // The API server serves JobSets and nothing else of the catalog.
  cluster.api.answer("GET", "/apis/jobset.x-k8s.io/v1alpha2", 200, test::discovery_document("JobSet", "jobsets"));
  const std::string mutating = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/workload-map";
  const std::string validating = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/workload-map";
  std::string config = shipped_configuration();
  // An administrator removed the JobSet rule.
  config.replace(config.find("\"jobset.x-k8s.io\""), 17, "\"jobset.example\"");
  cluster.api.answer("GET", mutating, 200, config);
  cluster.api.answer("PATCH", mutating, 200, config);
  WebhookRules rules(cluster.context(), {mutating, validating});
  auto outcome = rules.sync();
  // The other catalog kinds are not served: looked for again.
  CHECK_THAT(outcome, test::FailsWith(ErrorCode::NotFound, ""));
  const auto patches = cluster.api.calls("PATCH", mutating);
  REQUIRE(patches.size() == 1);
  CHECK(patches[0].content_type == kube::kJsonPatch);
  CHECK(patches[0].body.find(R"("resources":["jobsets"])") != std::string::npos);
  CHECK(cluster.api.calls("PATCH", validating).empty());  // not installed (404): nothing to keep in step
  // Someone wrote the configuration first: the precondition fails, and the round is retried.
  cluster.api.answer("PATCH", mutating, 409, R"({"message":"the object has been modified"})");
  outcome = rules.sync();
  REQUIRE_THAT(outcome, test::FailsWith(ErrorCode::Conflict, ""));
}

}  // namespace wm::controllers
