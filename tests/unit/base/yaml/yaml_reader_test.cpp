// YamlReader reports by file, line and field.
#include "base/yaml/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <string>

using wm::yaml::Diagnostics;
using wm::yaml::YamlReader;

TEST_CASE("YamlReader::map reports an unknown key at its own line") {
  const YAML::Node doc = YAML::Load("spec:\n  name: a\n  nmae: b\n");
  Diagnostics errors;
  YamlReader reader("file.yaml", errors);
  CHECK(reader.map(doc["spec"], "spec", {"name"}));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str() == "file.yaml:3: spec.nmae: unknown field");
}

// An annotation's value is YAML text inside the document: its keys' own lines count from the text, not the file, so
// what is wrong in it is reported at the annotation's line.
TEST_CASE("YamlReader::map with `at` reports an unknown key of YAML text at the line of the text's node") {
  const YAML::Node doc = YAML::Load(
      "metadata:\n"
      "  name: a\n"
      "  annotations:\n"
      "    example.io/spec: |\n"
      "      kinds: []\n"
      "      kind: .a\n"
      "      knid: .b\n");
  const YAML::Node at = doc["metadata"]["annotations"]["example.io/spec"];
  const YAML::Node text = YAML::Load(at.Scalar());
  REQUIRE(text["knid"].Mark().line + 1 == 3);  // the text's own line, which is not the file's
  Diagnostics errors;
  YamlReader reader("file.yaml", errors);
  CHECK(reader.map(text, at, "metadata.annotations.example.io/spec", {"kinds", "kind", "name"}));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].file == "file.yaml");
  CHECK(errors[0].line == YamlReader::line_of(at));
  CHECK(errors[0].line == 4);
  CHECK(errors[0].field == "metadata.annotations.example.io/spec.knid");
  CHECK(errors[0].message == "unknown field (kinds, kind, name)");
  CHECK(errors[0].str() == "file.yaml:4: metadata.annotations.example.io/spec.knid: unknown field (kinds, kind, name)");
}

TEST_CASE("YamlReader::map with `at` reports every unknown key, and YAML text that is not a mapping, at `at`'s line") {
  const YAML::Node doc = YAML::Load("a: 1\nb: |\n  x: 1\n  y: 2\nc: 'just text'\n");
  Diagnostics errors;
  YamlReader reader("f.yaml", errors);
  CHECK(reader.map(YAML::Load(doc["b"].Scalar()), doc["b"], "b", {"z"}));
  CHECK_FALSE(reader.map(YAML::Load(doc["c"].Scalar()), doc["c"], "c", {"x", "y"}));
  REQUIRE(errors.size() == 3);
  CHECK(errors[0].str() == "f.yaml:2: b.x: unknown field (z)");
  CHECK(errors[1].str() == "f.yaml:2: b.y: unknown field (z)");
  CHECK(errors[2].str() == "f.yaml:5: c: must be a mapping (x, y)");
}
