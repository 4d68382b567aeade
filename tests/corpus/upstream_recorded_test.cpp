// Upstream Workload Map records, in its e2e tests, each state a real operator put a workload through and the phases
// its Go library computed (test/e2e/recorded_data, copied to fixtures/upstream-recorded/ with their source). Under
// the same upstream definition (../shared/karta-upstream/<kartaName>.yaml), workload-map must give the same phases.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "mapper/catalog/definition_loader.h"
#include "mapper/catalog/documents.h"
#include "mapper/json/json_writer.h"
#include "mapper/view/status.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

TEST_CASE("upstream's recorded workload states get the phases upstream's library gave them") {
  const std::string dir = test::source_path("tests/fixtures/upstream-recorded");
  const std::string definitions = test::corpus_dir() + "/../../karta-upstream";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.path().extension() == ".yaml";
  CHECK(files >= 5);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    DYNAMIC_SECTION(file) {
      Diagnostics errors;
      auto documents = read_document_file(entry.path().string(), errors);
      REQUIRE(errors.empty());
      REQUIRE(documents.size() == 1);
      auto recording = test::parse_json(documents[0].json);
      std::string_view karta;
      REQUIRE(recording.root["kartaName"].get_string().get(karta) == simdjson::SUCCESS);
      const std::string karta_file = definitions + "/" + std::string(karta) + ".yaml";
      auto loaded = load_definitions(test::read_file(karta_file), karta_file);
      REQUIRE(loaded.errors.empty());
      REQUIRE(loaded.definitions.size() == 1);
      const Definition& definition = loaded.definitions[0];
      REQUIRE(definition.root().status);

      int states = 0;
      simdjson::dom::array events;
      REQUIRE(recording.root["events"].get_array().get(events) == simdjson::SUCCESS);
      for (auto event : events) {
        std::string_view kind;
        if (event["kind"].get_string().get(kind) != simdjson::SUCCESS || kind != "STATE") continue;
        auto object = test::parse_json(element_json(event["object"].value()));
        std::set<std::string> want, got;
        simdjson::dom::array phases;  // named: a range-for over a temporary result's value() would dangle
        REQUIRE(event["phases"].get_array().get(phases) == simdjson::SUCCESS);
        for (auto phase : phases) want.insert(lower(std::string(phase.get_string().value())));
        std::vector<std::string> warnings;
        for (const auto& phase : evaluate_status(*definition.root().status, *object.doc, warnings))
          got.insert(lower(phase));
        std::string_view version;
        if (event["resourceVersion"].get_string().get(version) != simdjson::SUCCESS) version = "?";
        INFO("resourceVersion " << version);
        CHECK(warnings.empty());
        CHECK(got == want);
        ++states;
      }
      CHECK(states >= 1);
    }
  }
}
