#include "mapper/documents.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "tests/support/test_support.h"

using namespace wm;

static std::string json_of(const std::string& yaml) {
  Diagnostics errors;
  auto docs = read_documents(yaml, "t.yaml", errors);
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
  Diagnostics errors;
  auto docs = read_documents("---\na: 1\n---\n---\nb: 2\n", "t.yaml", errors);
  REQUIRE(docs.size() == 2);
  CHECK(docs[1].json == R"({"b":2})");
  CHECK(docs[1].line == 5);
}

TEST_CASE("malformed YAML names file and line") {
  Diagnostics errors;
  read_documents("a: 1\nb: [unclosed\n", "bad.yaml", errors);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].str(), Catch::StartsWith("bad.yaml:"));
}

TEST_CASE("JSON input is taken as it is") {
  Diagnostics errors;
  auto docs = read_documents(R"({"kind":"Pod"})", "p.json", errors);
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].json == R"({"kind":"Pod"})");
}

TEST_CASE("a document whose aliases expand past 16 MiB of JSON is refused, quickly and in little memory") {
  const std::string yaml = test::read_file(test::source_path("tests/fuzz/regressions/definitions/billion-laughs.yaml"));
  Diagnostics errors;
  const auto started = std::chrono::steady_clock::now();
  auto docs = read_documents(yaml, "laughs.yaml", errors);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  CHECK(docs.empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str().find("laughs.yaml:") == 0);
  CHECK(errors[0].str().find("expands to more than 16 MiB of JSON (excessive aliasing?)") != std::string::npos);
}
