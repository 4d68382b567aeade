// The labels KAI's podgrouper looks a Karta up by (controllers/karta_labels.h), decided without an API server: the
// catalog carries them, upstream's Kartas do not, and the cluster side writes what a Karta lacks.
#include "controllers/karta_labels.h"

#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string label(simdjson::dom::element object, const char* key) {
  simdjson::dom::element labels;
  std::string_view value;
  if (object.at_pointer("/metadata/labels").get(labels) != simdjson::SUCCESS ||
      labels.at_key(key).get_string().get(value) != simdjson::SUCCESS)
    return "<none>";
  return std::string(value);
}

std::string root_kind(simdjson::dom::element karta, const char* field) {
  return test::string_at(karta, std::string("/spec/structureDefinition/rootComponent/kind/") + field);
}

}  // namespace

TEST_CASE("every catalog definition carries the labels KAI looks it up by, naming its root kind") {
  const std::string dir = test::source_path("definitions");
  size_t checked = 0;
  for (const auto& file : test::yaml_files_under(dir))
    for (const auto& karta : test::parse_file(dir + "/" + file)) {
      INFO(file);
      CHECK(label(karta.root, controllers::kKartaGroupLabel) == root_kind(karta.root, "group"));
      CHECK(label(karta.root, controllers::kKartaVersionLabel) == root_kind(karta.root, "version"));
      CHECK(label(karta.root, controllers::kKartaKindLabel) == root_kind(karta.root, "kind"));
      CHECK_FALSE(controllers::karta_lookup_labels_patch(karta.root));
      ++checked;
    }
  CHECK(checked == test::builtin_catalog().size());
}

TEST_CASE("an upstream Karta, applied as upstream documents it, is given the labels of its root kind") {
  const std::string dir = test::corpus_dir() + "/../../karta-upstream";
  size_t patched = 0;
  for (const auto& file : test::yaml_files_under(dir))
    for (const auto& karta : test::parse_file(dir + "/" + file)) {
      INFO(file);
      CHECK(label(karta.root, controllers::kKartaKindLabel) == "<none>");
      auto patch = controllers::karta_lookup_labels_patch(karta.root);
      REQUIRE(patch);
      test::ParsedObject applied = test::parse_json(*patch);
      CHECK(applied.api_version == "run.ai/v1alpha1");
      CHECK(applied.kind == "Karta");
      CHECK(applied.name == karta.name);
      CHECK(label(applied.root, controllers::kKartaGroupLabel) == root_kind(karta.root, "group"));
      CHECK(label(applied.root, controllers::kKartaVersionLabel) == root_kind(karta.root, "version"));
      CHECK(label(applied.root, controllers::kKartaKindLabel) == root_kind(karta.root, "kind"));
      ++patched;
    }
  CHECK(patched >= 10);
}

TEST_CASE("labels naming another kind are set right, and a Karta with no root kind is left alone") {
  const std::string karta = R"({"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"widgets",
    "labels":{"team":"a","run.ai/karta-group":"example.com","run.ai/karta-version":"v1","run.ai/karta-kind":"Gadget"}},
    "spec":{"structureDefinition":{"rootComponent":{"name":"w","kind":{"group":"example.com","version":"v1",
    "kind":"Widget"}}}}})";
  test::ParsedObject wrong = test::parse_json(karta);
  auto patch = controllers::karta_lookup_labels_patch(wrong.root);
  REQUIRE(patch);
  CHECK(*patch ==
        R"({"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"widgets","labels":{"run.ai/karta-group":)"
        R"("example.com","run.ai/karta-version":"v1","run.ai/karta-kind":"Widget"}}})");
  std::string right = karta;
  right.replace(right.find("Gadget"), 6, "Widget");
  CHECK_FALSE(controllers::karta_lookup_labels_patch(test::parse_json(right).root));
  CHECK_FALSE(controllers::karta_lookup_labels_patch(
      test::parse_json(R"({"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"empty"},"spec":{}})")
          .root));
}
