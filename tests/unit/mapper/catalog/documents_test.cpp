#include "mapper/catalog/documents.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "tests/support/test_support.h"

using namespace wm;

static std::string json_of(const std::string& yaml) {
  yaml::Diagnostics errors;
  auto docs = catalog::read_documents(yaml, "t.yaml", errors);
  REQUIRE(errors.empty());
  REQUIRE(docs.size() == 1);
  return docs[0].json;
}

TEST_CASE("YAML scalars get Kubernetes' types") {
  CHECK(
      json_of("a: 1\nb: \"1\"\nc: 1.5\nd: true\ne: yes\nf: null\ng: ~\nh: abc\ni: '007'\nj: 0x1F\nk: 1e3\nl: 500m") ==
      R"({"a":1,"b":"1","c":1.5,"d":true,"e":true,"f":null,"g":null,"h":"abc","i":"007","j":31,"k":1000,"l":"500m"})");
}

TEST_CASE("several documents, empty ones skipped, with their lines") {
  yaml::Diagnostics errors;
  auto docs = catalog::read_documents("---\na: 1\n---\n---\nb: 2\n", "t.yaml", errors);
  REQUIRE(docs.size() == 2);
  CHECK(docs[1].json == R"({"b":2})");
  CHECK(docs[1].line == 5);
}

TEST_CASE("malformed YAML names file and line") {
  yaml::Diagnostics errors;
  catalog::read_documents("a: 1\nb: [unclosed\n", "bad.yaml", errors);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].str(), Catch::StartsWith("bad.yaml:"));
}

// fuzz_definitions (tests/fuzz/regressions/definitions/comma-where-a-document-starts): yaml-cpp 0.7's LoadAll never
// consumes such a ',' and makes empty documents from it until memory runs out.
TEST_CASE("a comma where a document starts is refused with its line and not parsed forever") {
  for (const auto& [text, line] :
       std::vector<std::pair<std::string, size_t>>{{",", 1}, {"# comment\n  ,x: 1\n", 2}, {"a: 1\n---\n,\n", 3}}) {
    yaml::Diagnostics errors;
    CHECK(catalog::read_documents(text, "c.yaml", errors).empty());  // the file is refused, as for any YAML error
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].str() ==
          "c.yaml:" + std::to_string(line) + ": invalid YAML: a ',' outside [ ] or { } cannot start a value");
  }
  yaml::Diagnostics errors;
  CHECK(catalog::read_documents("a: b\n  ,c\n", "c.yaml", errors).size() == 1);  // inside a plain scalar: "b ,c"
  CHECK(errors.empty());
}

TEST_CASE("JSON input is taken as it is") {
  yaml::Diagnostics errors;
  auto docs = catalog::read_documents(R"({"kind":"Pod"})", "p.json", errors);
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].json == R"({"kind":"Pod"})");
}

TEST_CASE("a document whose aliases expand past 4 MiB of JSON is refused, quickly and in little memory") {
  const std::string yaml = test::read_file(test::source_path("tests/fuzz/regressions/definitions/billion-laughs.yaml"));
  yaml::Diagnostics errors;
  const auto started = std::chrono::steady_clock::now();
  auto docs = catalog::read_documents(yaml, "laughs.yaml", errors);
  // 0.1 s in a release build, under a second with ASan; unbounded, it ran out of 2 GiB.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
  CHECK(docs.empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str().find("laughs.yaml:") == 0);
  CHECK(errors[0].str().find("expands to more than 4 MiB of JSON (excessive aliasing?)") != std::string::npos);
}
