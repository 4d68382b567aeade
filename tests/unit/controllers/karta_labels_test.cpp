// The labels KAI's podgrouper and upstream Workload Map's operator look a Karta up by (controllers/karta_labels.h),
// decided without an API server: the catalog carries both schemes, upstream's Kartas neither, and the cluster side
// writes what a Karta lacks.
#include "controllers/karta_labels.h"

#include <algorithm>
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

// A label selector's match, as client-go's MatchingLabels: every key present with exactly that value ("" included).
bool matches(simdjson::dom::element karta, const std::vector<std::pair<const char*, std::string>>& selector) {
  for (const auto& [key, value] : selector)
    if (label(karta, key) != value) return false;
  return true;
}

}  // namespace

TEST_CASE("every catalog definition carries both schemes' lookup labels, naming its root kind") {
  const std::string dir = test::source_path("definitions");
  size_t checked = 0;
  for (const auto& file : test::yaml_files_under(dir))
    for (const auto& karta : test::parse_file(dir + "/" + file))
      for (const controllers::KartaLookupScheme& scheme : controllers::kKartaLookupSchemes) {
        INFO(file << ": " << scheme.consumer);
        CHECK(label(karta.root, scheme.group) == root_kind(karta.root, "group"));
        CHECK(label(karta.root, scheme.version) == root_kind(karta.root, "version"));
        CHECK(label(karta.root, scheme.kind) == root_kind(karta.root, "kind"));
        CHECK_FALSE(controllers::karta_lookup_labels_patch(karta.root));
        ++checked;
      }
  CHECK(checked == 2 * test::builtin_catalog().size());
}

TEST_CASE("each consumer's lookup finds every catalog Karta: KAI's exactly one per kind, upstream's among its kind's") {
  const std::string dir = test::source_path("definitions");
  std::vector<test::ParsedObject> kartas;
  for (const auto& file : test::yaml_files_under(dir))
    for (auto& karta : test::parse_file(dir + "/" + file)) kartas.push_back(std::move(karta));
  REQUIRE(kartas.size() == test::builtin_catalog().size());
  for (const auto& karta : kartas) {
    INFO(karta.name);
    const std::string group = root_kind(karta.root, "group"), version = root_kind(karta.root, "version"),
                      kind = root_kind(karta.root, "kind");
    // KAI: MatchingLabels on group, version and kind of the pod's top owner, then exactly one Karta
    // (kai-scheduler plugins/karta hub.go getKartaPerGvkLabelSelectors, getKartaForGvk).
    const controllers::KartaLookupScheme& kai = controllers::kKaiKartaLabels;
    std::vector<std::string> found;
    for (const auto& other : kartas)
      if (matches(other.root, {{kai.group, group}, {kai.version, version}, {kai.kind, kind}}))
        found.push_back(other.name);
    CHECK(found == std::vector<std::string>{karta.name});
    // Upstream's operator: MatchingLabels on the CRD's group and kind, every version's Karta re-queued
    // (operator/pkg/eventfilter.go MapCRDToKartaEvent).
    const controllers::KartaLookupScheme& upstream = controllers::kWorkloadMapKartaLabels;
    found.clear();
    for (const auto& other : kartas)
      if (matches(other.root, {{upstream.group, group}, {upstream.kind, kind}})) {
        found.push_back(other.name);
        CHECK(root_kind(other.root, "group") + "/" + root_kind(other.root, "kind") == group + "/" + kind);
      }
    CHECK(std::find(found.begin(), found.end(), karta.name) != found.end());
  }
}

TEST_CASE("an upstream Karta, applied as upstream documents it, is given the labels of its root kind") {
  const std::string dir = test::corpus_dir() + "/../../karta-upstream";
  size_t patched = 0;
  for (const auto& file : test::yaml_files_under(dir))
    for (const auto& karta : test::parse_file(dir + "/" + file)) {
      INFO(file);
      CHECK(label(karta.root, controllers::kKaiKartaLabels.kind) == "<none>");
      CHECK(label(karta.root, controllers::kWorkloadMapKartaLabels.kind) == "<none>");
      auto patch = controllers::karta_lookup_labels_patch(karta.root);
      REQUIRE(patch);
      test::ParsedObject applied = test::parse_json(*patch);
      CHECK(applied.api_version == "run.ai/v1alpha1");
      CHECK(applied.kind == "Karta");
      CHECK(applied.name == karta.name);
      for (const controllers::KartaLookupScheme& scheme : controllers::kKartaLookupSchemes) {
        CHECK(label(applied.root, scheme.group) == root_kind(karta.root, "group"));
        CHECK(label(applied.root, scheme.version) == root_kind(karta.root, "version"));
        CHECK(label(applied.root, scheme.kind) == root_kind(karta.root, "kind"));
      }
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
        R"("example.com","run.ai/karta-version":"v1","run.ai/karta-kind":"Widget","karta.run.ai/group":"example.com",)"
        R"("karta.run.ai/version":"v1","karta.run.ai/kind":"Widget"}}})");
  std::string right = karta;
  right.replace(right.find("Gadget"), 6, "Widget");
  CHECK(controllers::karta_lookup_labels_patch(test::parse_json(right).root));  // upstream's scheme is missing
  right.replace(
      right.find(R"("team":"a",)"), 11,
      R"("team":"a","karta.run.ai/group":"example.com","karta.run.ai/version":"v1","karta.run.ai/kind":"Widget",)");
  CHECK_FALSE(controllers::karta_lookup_labels_patch(test::parse_json(right).root));
  CHECK_FALSE(controllers::karta_lookup_labels_patch(
      test::parse_json(R"({"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"empty"},"spec":{}})")
          .root));
}
