// Inputs the fuzzers found (or that we feared), replayed on every run: tests/fuzz/regressions/.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mapper/catalog/definition_loader.h"
#include "mapper/catalog/documents.h"
#include "tests/support/engine_compare.h"
#include "tests/support/result_matchers.h"
#include "tests/support/test_support.h"
#include "webhook/admission.h"

using namespace wm;

namespace {

std::vector<std::pair<std::string, std::string>> inputs(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("tests/fuzz/regressions/" + dir))) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    out.emplace_back(entry.path().filename().string(), text.str());
  }
  return out;
}

}  // namespace

TEST_CASE("fuzzer regressions: definitions and manifests are refused, not crashed on") {
  for (const auto& [name, text] : inputs("definitions")) {
    INFO(name);
    catalog::DefinitionLoad load = catalog::load_definitions(text, name);
    CHECK_FALSE(load.errors.empty());
    yaml::Diagnostics errors;
    catalog::read_documents(text, name, errors);
  }
}

TEST_CASE("fuzzer regressions: AdmissionReviews get an answer") {
  yaml::Diagnostics errors;
  policy::AdmissionState state{std::make_shared<catalog::Catalog>(catalog::Catalog::embedded(errors)),
                               std::make_shared<policy::Policy>(policy::Policy::builtin())};
  simdjson::dom::parser parser;
  for (const auto& [name, body] : inputs("admission")) {
    INFO(name);
    auto result = webhook::review(webhook::Endpoint::Mutate, body, state, parser);
    CHECK((result.http_status == 200 || result.http_status == 400));
    CHECK_FALSE(result.body.empty());
  }
}

TEST_CASE("fuzzer regressions: the native evaluator and libjq agree") {
  for (const auto& [name, text] : inputs("native_vs_jq")) {
    INFO(name);
    auto input = test::split_case(text);
    REQUIRE(input);
    if (!expr::NativeExpression::parse(input->expression)) continue;  // not native: nothing to compare
    auto path = expr::PathExpression::compile(input->expression);
    INFO("the native subset takes " << input->expression << ", which jq must take too");
    REQUIRE_THAT(path, test::IsOk());
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(input->document.data(), input->document.size()).get(root) != simdjson::SUCCESS) continue;
    if (test::has_duplicate_keys(root)) continue;
    CHECK(test::disagreement(*path, root) == "");
  }
}
