// JqLibrary's own use of libjq's jv: every reference it takes is given back, on every way out of a run (values,
// locations, a refused path, an error with or without a message, a halt). The sanitized build runs this under
// LeakSanitizer without suppressions; here each case also checks that the object's jv is referenced by its
// document alone once the run is over, which a forgotten jv_copy or a missing jv_free would break.
extern "C" {
#include <jv.h>
}

#include <simdjson.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "mapper/expr/jq_input.h"
#include "mapper/expr/jq_library.h"

namespace {

struct Result {
  std::string json, pointer;  // pointer: "" when the value has no location
};
struct Run {
  std::vector<Result> values;
  std::string error;
  int references_after = 0;  // of the object's jv, once the run is over
};

Run run(const std::string& expression, const std::string& object, bool want_pointers) {
  wm::expr::JqLibrary library;
  library.add(expression);
  REQUIRE(library.validate().empty());
  simdjson::dom::parser parser;
  wm::json::ObjectDocument doc(parser.parse(object).value());
  Run out;
  wm::json::EvalResult result = library.run(0, doc, want_pointers);  // its values live as long as `doc`
  for (const auto& value : result.values) out.values.push_back({value.json(), value.has_pointer ? value.pointer : ""});
  out.error = result.error;
  out.references_after = jv_get_refcnt(wm::expr::jq_input(doc).value);
  return out;
}

}  // namespace

TEST_CASE("jq library: values and locations give every jv reference back") {
  const std::string object = R"({"spec":{"jobs":[{"name":"a","replicas":2},{"name":"b","replicas":3}]}})";
  auto located = run(".spec.jobs[] | select(.replicas > 2)", object, true);
  CHECK(located.error.empty());
  REQUIRE(located.values.size() == 1);
  CHECK(located.values[0].pointer == "/spec/jobs/1");
  CHECK(located.references_after == 1);

  auto computed = run("[.spec.jobs[].replicas] | add", object, true);  // not a path: values only
  CHECK(computed.error.empty());
  REQUIRE(computed.values.size() == 1);
  CHECK(computed.values[0].json == "5");
  CHECK(computed.values[0].pointer.empty());
  CHECK(computed.references_after == 1);

  auto negative = run(".spec.jobs[-1]", object, true);  // a location JSON Pointer cannot say
  CHECK(negative.error.empty());
  REQUIRE(negative.values.size() == 1);
  CHECK(negative.values[0].json == R"({"name":"b","replicas":3})");
  CHECK(negative.values[0].pointer.empty());
  CHECK(negative.references_after == 1);
}

TEST_CASE("jq library: errors and halts give every jv reference back") {
  const std::string object = R"({"spec":{"jobs":[{"replicas":"x"}],"n":1}})";
  auto message = run(".spec.jobs[] | .replicas + 1", object, false);
  CHECK(message.error == R"(string ("x") and number (1) cannot be added)");
  CHECK(message.references_after == 1);

  auto not_a_string = run(".spec | error({reason: .n})", object, true);
  CHECK(not_a_string.error == R"({"reason":1})");
  CHECK(not_a_string.references_after == 1);

  auto located_then_failed = run(".spec.n, (.spec.jobs[0].replicas | tonumber)", object, true);
  CHECK(located_then_failed.error == "Invalid numeric literal at EOF at line 1, column 1 (while parsing 'x')");
  CHECK(located_then_failed.values.size() == 1);
  CHECK(located_then_failed.references_after == 1);

  // Stopped with items still to iterate: jq would backtrack on; the library lets its references go at once.
  auto midway = run(R"(.spec.list[] | if . == 1 then error("one") else . end)", R"({"spec":{"list":[1,2,3]}})", false);
  CHECK(midway.error == "one");
  CHECK(midway.references_after == 1);

  auto halted = run("[limit(100000000; repeat(.spec))] | length", object, false);
  CHECK(halted.error.find("stopped: the expression ran longer than") == 0);
  CHECK(halted.references_after == 1);
}
