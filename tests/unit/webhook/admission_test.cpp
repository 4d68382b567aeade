// webhook::review() on in-memory AdmissionReviews, without TLS: what admission answers for workloads whose pods live
// inside other objects (an AppWrapper's) or in many Deployments (a Milvus in groups), and for what it cannot read.
#include "webhook/admission.h"

#include <catch2/catch.hpp>

#include "mapper/json/json_writer.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

namespace wm::webhook {
namespace {

struct Answer {
  AdmissionResult result;
  bool allowed = false;
  std::string patch, warnings;
};

Answer mutate(const std::string& object_yaml, const std::string& rules = "- name: all\n  profile: kai\n") {
  catalog::Diagnostics errors;
  auto policy = Policy::load(test::policy_with_rules(rules), "policy.yaml", errors);
  REQUIRE(policy);
  AdmissionState state{std::make_shared<const catalog::Catalog>(catalog::Catalog::embedded(errors)),
                       std::make_shared<const Policy>(std::move(*policy))};
  REQUIRE(errors.empty());
  auto objects = test::parse_yaml(object_yaml);
  REQUIRE(objects.size() == 1);
  simdjson::dom::parser parser;
  Answer a;
  a.result =
      review(Endpoint::Mutate, test::admission_review(json::element_json(objects[0].root), "team-a"), state, parser);
  REQUIRE(a.result.http_status == 200);
  simdjson::dom::parser answer_parser;
  simdjson::dom::element response = answer_parser.parse(a.result.body)["response"].value();
  a.allowed = response["allowed"].get_bool().value();
  std::string_view patch;
  if (response["patch"].get_string().get(patch) == simdjson::SUCCESS) a.patch = test::base64_decode(std::string(patch));
  simdjson::dom::array warnings;
  if (response["warnings"].get_array().get(warnings) == simdjson::SUCCESS)
    for (auto w : warnings) a.warnings += std::string(w.get_string().value()) + "\n";
  return a;
}

}  // namespace

TEST_CASE("an AppWrapper is edited inside the objects it wraps, as their own kinds are") {
  const Answer a =
      mutate(test::read_file(test::source_path("tests/fixtures/upstream/appwrapper/wrapped-pytorch-job.yaml")));
  CHECK(a.result.outcome == Outcome::Patched);
  CHECK(a.allowed);
  CHECK_THAT(
      a.patch,
      Catch::Contains(
          R"("path":"/spec/components/0/template/spec/pytorchReplicaSpecs/Master/template/spec/schedulerName","value":"kai-scheduler")"));
  CHECK_THAT(
      a.patch,
      Catch::Contains(
          R"("path":"/spec/components/0/template/spec/pytorchReplicaSpecs/Worker/template/spec/schedulerName","value":"kai-scheduler")"));
  CHECK_THAT(a.patch, Catch::Contains(R"("path":"/metadata/annotations/workload-map.io~1gang-size","value":"2")"));
}

TEST_CASE("an AppWrapper holding a kind no definition reads gets the rule's failure policy") {
  const std::string widget =
      "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: aw}\nspec:\n  components:\n"
      "  - podSets: [{replicas: 2, path: template.spec.template}]\n"
      "    template: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {template: {}}}\n";
  const Answer ignored = mutate(widget);
  CHECK(ignored.allowed);
  CHECK(ignored.result.outcome == Outcome::NotUnderstood);
  CHECK(ignored.patch.empty());
  CHECK_THAT(
      ignored.warnings,
      Catch::Contains("wrapped example.com/v1 Widget at /spec/components/0/template: no definition reads this kind"));
  const Answer refused = mutate(widget, "- name: all\n  profile: kai\n  failurePolicy: Fail\n");
  CHECK_FALSE(refused.allowed);
  CHECK(refused.result.outcome == Outcome::FailedClosed);
}

TEST_CASE("a Milvus in deployment groups gangs the pods of every group") {
  const Answer a =
      mutate(test::read_file(test::source_path("tests/fixtures/upstream/milvus/milvus_deployment_groups.yaml")));
  CHECK(a.result.outcome == Outcome::Patched);
  CHECK_THAT(a.patch, Catch::Contains(R"("path":"/metadata/annotations","value":{"workload-map.io/gang-size":"13")"));
  CHECK_THAT(a.patch,
             Catch::Contains(R"({"op":"add","path":"/spec/components/proxy/schedulerName","value":"kai-scheduler"})"));
}

}  // namespace wm::webhook
