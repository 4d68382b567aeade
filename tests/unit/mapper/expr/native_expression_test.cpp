// The native evaluator must agree with libjq: same outputs in the same order, same locations, an
// error where jq has one. These cases pin down the corners; corpus/native_vs_jq covers real objects.
#include <catch2/catch.hpp>
#include <chrono>

#include "mapper/catalog/definition_loader.h"
#include "mapper/expr/jq_watchdog.h"
#include "mapper/expr/path_expression.h"
#include "tests/support/engine_compare.h"
#include "tests/support/result_matchers.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::string describe(const json::EvalResult& r) {
  std::string out;
  for (const auto& v : r.values) out += v.json() + "@" + (v.has_pointer ? v.pointer : std::string("-")) + " ";
  if (!r.ok()) out += "error";
  return out;
}

// jq 1.6 refuses `expression`, so the native parser must too (else a definition would pass lint with it).
void refused_by_both(const std::string& expression) {
  INFO(expression);
  CHECK_FALSE(expr::NativeExpression::parse(expression));
  CHECK_FALSE(expr::PathExpression::compile(expression));
}

void agree(const std::string& expression, const std::string& json, bool expect_native = true) {
  auto object = test::parse_json(json);
  auto path = expr::PathExpression::compile(expression);
  REQUIRE(path.ok());
  INFO("expression: " << expression << "   object: " << json);
  CHECK(path->is_native() == expect_native);
  for (bool pointers : {false, true}) {
    json::EvalResult jq = path->evaluate_jq(*object.doc, pointers);
    auto native = path->evaluate_native(*object.doc, pointers);
    if (!expect_native) continue;
    REQUIRE(native.has_value());
    std::string a = describe(*native), b = describe(jq);
    // jq's path() is all-or-nothing: when any output is computed none is located, while the native
    // engine still locates the others. Then, as without pointers, only values are compared.
    bool jq_located = false;
    for (const auto& v : jq.values) jq_located = jq_located || v.has_pointer;
    if (!pointers || !jq_located) {
      for (auto* s : {&a, &b}) {
        std::string cleaned;
        for (size_t i = 0; i < s->size(); ++i) {
          if ((*s)[i] == '@') {
            while (i < s->size() && (*s)[i] != ' ') ++i;
          }
          if (i < s->size()) cleaned.push_back((*s)[i]);
        }
        *s = cleaned;
      }
    }
    CHECK(a == b);
  }
}

}  // namespace

TEST_CASE("paths, iteration and indexing match jq") {
  const std::string obj = R"({"a":{"b":[{"n":"x","r":2},{"n":"y"}],"m":{"k1":1,"k2":{"z":3}}},"s":"str","t/k~":5})";
  agree(".a.b[].n", obj);
  agree(".a.b[1]", obj);
  agree(".a.b[5]", obj);
  agree(".a.m[]", obj);
  agree(".a.missing.deeper", obj);
  agree(".[\"t/k~\"]", obj);
  agree(".a.m | keys_unsorted[]", obj);
  agree(".a.m | keys[]", obj);
  agree(".a.b | keys[]", obj);  // an array's keys are its indices
  agree(".a.b | keys_unsorted[] as $i | .[$i].n", obj, /*expect_native=*/false);
  agree(".s | keys[]", obj);
  agree(".", obj);
  agree(".a.b[] | .r", obj);
}

TEST_CASE("errors end the stream where jq's does") {
  const std::string obj = R"({"a":[{"r":1},5,{"r":3}],"s":"str"})";
  agree(".a[] | .r", obj);  // 1, then an error on 5
  agree(".s.x", obj);
  agree(".missing[]", obj);
  agree(".a[].r?", obj);  // the ? quiets .r alone: 1, 3
  agree(".missing[]?", obj);
  agree(".a[]?.r", obj);
  agree("(.a[] | .r)?", obj);
}

TEST_CASE("alternatives and arithmetic match jq") {
  const std::string obj = R"({"x":[{"r":null,"p":2},{"r":3},{"r":false}],"n":4,"z":0})";
  agree(".x[] | .r // 1", obj);
  agree("(.x[] | .r) // 7", obj);
  agree(".x[] | (.r // 1) * (.p // 1)", obj);
  agree(".n * .n - 1", obj);
  agree(".z // 9", obj);  // 0 is true in jq
  agree(".missing // .n // 1", obj);
  agree("(.n // 1) * (.x[].p // 1)", obj);
  agree(".n / 2 + 1", obj);
  agree(".missing + 1", obj);
  agree(".missing * 2", obj);
  agree("(.missing // [])[]", obj);
  agree("\"1\"", obj);
  agree("1", obj);
}

TEST_CASE("conditionals, comparisons, boolean operators and variables match jq") {
  const std::string obj =
      R"({"mode":"cluster","n":3,"s":"b","o":{"k":1},"l":[1,2],"f":false,"z":null,"x":[{"r":1},{"r":5}]})";
  agree("if .mode == \"cluster\" then .n else empty end", obj);
  agree("if (.mode // \"standalone\") == \"standalone\" then 1 else empty end", obj);
  agree("if .f then 1 elif .n > 2 then 2 else 3 end", obj);
  agree(".mode == \"cluster\" and .o != null", obj);
  agree(".f or .z", obj);
  agree("(.f, true) and (true, .z)", obj);
  agree(".n < 4, .n <= 3, .n > 3, .n >= 3, .s < \"c\", null < false, false < 0, 1 < \"a\"", obj);
  agree(". as $all | .x[] | .r + $all.n", obj);
  agree(". as $root | .o | keys_unsorted[] | if . == \"k\" then $root.n else null end", obj);
  agree(".x[] | .r as $r | $r * 2", obj);
  agree(".f | not", obj);
  agree("[empty]", obj, false);
  agree("if .x[].r > 2 then \"big\" else \"small\" end", obj);
}

TEST_CASE("expressions outside the subset are left to jq") {
  const std::string obj = R"({"a":[1,2]})";
  agree(".a | length", obj, false);
  agree("[.a[] | select(. > 1)]", obj, false);
  agree(".a | to_entries", obj, false);
  agree(".a[-1]", obj, false);
  agree("..", obj, false);
  agree(".a | map(. * 2)", obj, false);
}

TEST_CASE("variable names follow jq's identifiers, so jq refuses what the native subset refuses") {
  CHECK(expr::NativeExpression::parse(". as $_x1 | $_x1"));
  // Found by fuzz_native_vs_jq: a name starting with a digit was taken natively, and so never compiled by jq.
  CHECK_FALSE(expr::NativeExpression::parse(". as $8ob | ."));
  auto compiled = expr::PathExpression::compile(". as $8ob | .");
  CHECK_THAT(compiled, test::FailsWith(ErrorCode::Invalid, ""));
}

TEST_CASE("\"?//\" is one jq token (the destructuring alternative): `.a ?// .b` is refused, `.a? // .b` is not") {
  // Found by an hour of fuzz_native_vs_jq.
  refused_by_both(".a ?// .b");
  CHECK(expr::NativeExpression::parse(".a? // .b"));
  agree(".a? // .b", R"({"b":1})");
}

TEST_CASE(
    "a field named like an exponent (.e1) is a number to jq 1.6's lexer and refused, but quoted or as .e1x a field") {
  // Found by fuzz_native_vs_jq.
  for (const char* refused : {".e1", ".spec.e1", ".a.E10 // 1"}) refused_by_both(refused);
  agree(".a.e1x", R"({"a":{"e1x":1}})");
  agree(".a.e", R"({"a":{"e":2}})");
  agree(R"(.a["e1"])", R"({"a":{"e1":3}})");
}

TEST_CASE("a literal or a sum identical to its input keeps the input's location, as jq's path() does") {
  // Found by fuzz_native_vs_jq: jq's path(0) on 0 is [], path(1) on 0 an error.
  agree("00", "0");
  agree(".a | 1", R"({"a":1})");
  agree(".a | 2", R"({"a":1})");
  agree(".a | null", R"({"a":null})");
  agree(".a | true", R"({"a":true})");
  agree(".a + 0", R"({"a":3})");
  agree(".a - 1", R"({"a":3})");
}

TEST_CASE("a number followed by a dot is one (invalid) number to jq 1.6's lexer: 4..q and 1.2.3 are refused") {
  // Found by fuzz_native_vs_jq.
  for (const char* refused : {"4..q", "1.2.3", "2..a"}) refused_by_both(refused);
  agree("4.", "null");
  agree("3.|.", "null");
}

TEST_CASE("no suffix after a `?` on a whole term: .?.a and (.)?.a are refused, .a?.b is not") {
  // Found by fuzz_native_vs_jq.
  for (const char* refused : {".?.template", "(.)?.a", ".? [0]"}) refused_by_both(refused);
  agree(".a?.b", R"({"a":{"b":1}})");
  agree(".? | .a", R"({"a":1})");
}

TEST_CASE("white space is jq 1.6's: spaces, tabs and newlines") {
  CHECK(expr::NativeExpression::parse(".a |\t.b\n// 1"));
  // Found by fuzz_native_vs_jq: isspace() also took these, which jq's lexer refuses.
  for (const char* other : {"\f", "\v", "\r"}) {
    INFO("separator " << static_cast<int>(other[0]));
    CHECK_FALSE(expr::NativeExpression::parse(std::string(".a") + other + "// 1"));
    CHECK_FALSE(expr::PathExpression::compile(std::string(".a") + other + "// 1"));
  }
}

TEST_CASE("an expression with a NUL is refused: jq would read only what comes before it") {
  // Found by fuzz_native_vs_jq: NULs inside a string literal were taken natively.
  CHECK_FALSE(expr::NativeExpression::parse(std::string(".a == \"c\0d\"", 11)));
  catalog::DefinitionLoad load = catalog::load_definitions(
      std::string("apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec:\n  structureDefinition:\n"
                  "    rootComponent:\n      name: r\n      kind: {group: g, version: v1, kind: K}\n"
                  "      specDefinition: {podTemplateSpecPath: \".spec.\\0template\"}\n"),
      "nul.yaml");
  std::string messages;
  for (const auto& e : load.errors) messages += e.str() + "\n";
  INFO(messages);
  CHECK_THAT(messages, Catch::Contains("specDefinition.podTemplateSpecPath: jq expression contains a NUL character"));
}

TEST_CASE("arithmetic on strings falls back to jq at run time") {
  auto object = test::parse_json(R"({"s":"ab","n":2})");
  auto path = expr::PathExpression::compile(".s + .s");
  REQUIRE(path->is_native());
  CHECK_FALSE(path->evaluate_native(*object.doc, false).has_value());
  json::EvalResult r = path->evaluate(*object.doc, false);
  REQUIRE(r.values.size() == 1);
  CHECK(r.values[0].json() == "\"abab\"");

  // Objects compare deeply, key order aside: jq's job too.
  auto objects = test::parse_json(R"({"a":{"x":1,"y":2},"b":{"y":2,"x":1}})");
  auto equal = expr::PathExpression::compile(".a == .b");
  REQUIRE(equal->is_native());
  CHECK_FALSE(equal->evaluate_native(*objects.doc, false).has_value());
  CHECK(equal->evaluate(*objects.doc, false).values.at(0).json() == "true");
}

// jq 1.6 leaks the operand of an arithmetic error (one string of the input per failed evaluation), and admission sees
// malformed objects before schema validation does: the native engine raises every error jq would, and leaves jq only
// the pairs jq gives meaning to (builtin.c f_plus, f_minus, f_multiply, f_divide).
TEST_CASE("arithmetic on other types: jq's errors natively, jq's meanings left to jq") {
  const std::string object =
      R"({"o":{"k":"v"},"p":{"x":1},"a":[1,2],"b":[2],"s":"ab","t":"b","n":2,"f":true,"z":null})";
  for (const char* error :
       {".o * 1", "1 * .o", ".o + 1", ".o - .o", ".o / .o", ".a * 2", ".a / .b", ".s - .t", ".s + 1", ".f + 1",
        ".f * .f", ".n - .a", ".z - 1", ".z * .s", ".a + .o", ".s * .a", "(.o // 1) * 4"}) {
    agree(error, object);
    auto parsed = test::parse_json(object);
    auto path = expr::PathExpression::compile(error);
    INFO(error);
    CHECK_FALSE(path->evaluate_native(*parsed.doc, false)->ok());
  }
  for (const char* left_to_jq : {".o + .p", ".a + .b", ".s + .t", ".a - .b", ".o * .p", ".s / .t"}) {
    auto parsed = test::parse_json(object);
    auto path = expr::PathExpression::compile(left_to_jq);
    INFO(left_to_jq);
    CHECK_FALSE(path->evaluate_native(*parsed.doc, false).has_value());
    const json::EvalResult r = path->evaluate(*parsed.doc, false);
    CHECK(r.ok());
    CHECK(r.values.size() == 1);
  }
}

// jq repeats a string a number of times (f_multiply), in one builtin no deadline stops: `replicas: "1"` beside a size
// of a billion took 36 s and a gigabyte. A definition's native expression computes counts, so the mapper refuses at
// once.
TEST_CASE("a string times a number is refused natively, never repeated by jq") {
  auto parsed = test::parse_json(R"({"replicas":"1","size":1000000000})");
  for (const char* count : {".replicas * .size", ".size * .replicas", "(.replicas // 1) * (.size // 1)"}) {
    auto path = expr::PathExpression::compile(count);
    INFO(count);
    REQUIRE(path->is_native());
    const auto native = path->evaluate_native(*parsed.doc, false);
    REQUIRE(native.has_value());
    CHECK_THAT(native->error,
               Catch::StartsWith(std::string(expr::kRefusedPrefix)) && Catch::Contains("a count is a string"));
    CHECK(path->evaluate(*parsed.doc, false).values.empty());
  }
}

TEST_CASE("a jq expression that does not compile is refused with jq's message") {
  auto compiled = expr::PathExpression::compile(".a | | .b");
  CHECK_THAT(compiled, test::FailsWith(ErrorCode::Invalid, "syntax error"));
}

namespace {

std::string numbers_object(int n) {
  std::string json = R"({"a":[)";
  for (int i = 0; i < n; ++i) json += (i ? "," : "") + std::to_string(i);
  return json + "]}";
}

}  // namespace

TEST_CASE("bounded evaluation: a native expression that multiplies lists is stopped, and ? cannot catch it") {
  auto object = test::parse_json(numbers_object(1000));
  for (const char* expression :
       {".a[] as $x | .a[] as $y | .a[] as $z | empty", "(.a[] as $x | .a[] as $y | .a[] as $z | empty)?"}) {
    INFO(expression);
    auto path = expr::PathExpression::compile(expression);
    REQUIRE(path.ok());
    REQUIRE(path->is_native());
    auto t0 = std::chrono::steady_clock::now();
    json::EvalResult r = path->evaluate(*object.doc, false);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    CHECK_THAT(r.error, Catch::StartsWith("stopped: the expression took more than 10000000 steps"));
  }
}

TEST_CASE("bounded evaluation: a jq expression past its time budget is halted, and jq serves the next one") {
  auto object = test::parse_json(numbers_object(1000));
  auto slow = expr::PathExpression::compile("[.a[] as $x | .a[] as $y | .a[] as $z | 1] | length");
  auto quick = expr::PathExpression::compile(".a | length");
  REQUIRE(slow.ok());
  REQUIRE(quick.ok());
  REQUIRE_FALSE(slow->is_native());
  for (bool pointers : {false, true}) {
    auto t0 = std::chrono::steady_clock::now();
    json::EvalResult r = slow->evaluate(*object.doc, pointers);
    auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took >= expr::kJqTimeBudget);
    CHECK(took < std::chrono::seconds(5));  // a billion steps would take minutes
    CHECK(r.error == "stopped: the expression ran longer than 100 ms");
    json::EvalResult next = quick->evaluate(*object.doc, false);
    REQUIRE(next.ok());
    REQUIRE(next.values.size() == 1);
    CHECK(next.values[0].json() == "1000");
  }
}

TEST_CASE("tonumber: numbers in strings are read, other JSON in strings is refused (jq 1.6 leaks on those)") {
  auto path = expr::PathExpression::compile(".a[] | tonumber");
  REQUIRE(path.ok());
  CHECK(path->is_native());  // plain integers natively; the rest ("1e3", " 7", "[1,2]") by jq, with its answers
  auto numbers = test::parse_json(R"({"a":["12"," 7","1e3",4]})");
  json::EvalResult r = path->evaluate(*numbers.doc, false);
  REQUIRE(r.ok());
  REQUIRE(r.values.size() == 4);
  CHECK(r.values[0].json() == "12");
  CHECK(r.values[1].json() == "7");
  CHECK(r.values[2].json() == "1000");
  CHECK(r.values[3].json() == "4");
  for (const char* text : {R"("[1,2]")", R"(" {\"x\":1}")", R"("\"5\"")"}) {
    auto object = test::parse_json(std::string(R"({"a":[)") + text + "]}");
    json::EvalResult bad = path->evaluate(*object.doc, false);
    INFO(text);
    CHECK_THAT(bad.error, Catch::EndsWith("cannot be parsed as a number"));
  }
}

TEST_CASE("tonumber natively: integers and integer strings, with signs, zeros and other text left to jq") {
  for (const auto& [input, output] : std::vector<std::pair<std::string, std::string>>{{R"("12")", "12"},
                                                                                      {R"("-3")", "-3"},
                                                                                      {R"("0")", "0"},
                                                                                      {"5", "5"},
                                                                                      {"2.5", "2.5"},
                                                                                      {R"("007")", ""},
                                                                                      {R"("-0")", ""},
                                                                                      {R"("+1")", ""},
                                                                                      {R"("1.5")", ""},
                                                                                      {R"("")", ""},
                                                                                      {R"("1234567890123456")", ""},
                                                                                      {"null", ""},
                                                                                      {"true", ""}}) {
    auto object = test::parse_json(R"({"a":)" + input + "}");
    auto native = expr::NativeExpression::parse(".a | tonumber");
    REQUIRE(native);
    const auto r = native->run(*object.doc, false);
    INFO(input);
    if (output.empty()) {
      CHECK_FALSE(r);  // unsupported: libjq decides
    } else {
      REQUIRE(r);
      REQUIRE(r->values.size() == 1);
      CHECK(r->values[0].json() == output);
      agree(".a | tonumber", R"({"a":)" + input + "}");
    }
  }
}

TEST_CASE("indices, index and rindex give jq's answers on arrays and strings (jq 1.6 leaks on arrays)") {
  const std::pair<const char*, const char*> cases[] = {{".a | indices(1)", "[0,2,5]"},
                                                       {".a | indices([1,2])", "[0]"},
                                                       {".a | indices([])", "[]"},
                                                       {".a | index(3)", "null"},
                                                       {".a | rindex(1)", "5"},
                                                       {".s | indices(\"b\")", "[1,3]"},
                                                       {".s | rindex(\"b\")", "3"},
                                                       {".n | index(\"x\")", "null"},
                                                       {".a | indices([1,2,1,0,0,1,2])", "[]"},
                                                       {".a | [.[] | tostring] | index(\"4\")", "4"}};
  auto object = test::parse_json(R"({"a":[1,2,1,0,4,1],"s":"abcb","n":null})");
  for (const auto& [expression, expected] : cases) {
    auto path = expr::PathExpression::compile(std::string("[") + expression + "]");
    REQUIRE(path.ok());
    json::EvalResult r = path->evaluate(*object.doc, false);
    INFO(expression);
    REQUIRE(r.ok());
    REQUIRE(r.values.size() == 1);
    CHECK(r.values[0].json() == std::string("[") + expected + "]");
  }
}

TEST_CASE("floor natively on numbers, with jq's values and locations, other types left to jq") {
  agree(".a | . * 1", R"({"a":7})");  // a computed result identical to its located input
  for (const char* input : {"7", "7.9", "-0.5", "-3", "1e300", "0"})
    agree(".a | floor", std::string(R"({"a":)") + input + "}");
  // The integer division KServe's LLMInferenceService sizes its groups with: data / dataLocal, at least 1.
  agree("[((.p.data // 1) / (.p.dataLocal // 1) | floor), 1] | .[0]", R"({"p":{"data":8,"dataLocal":3}})", false);
  agree("((.p.data // 1) / (.p.dataLocal // 1) | floor)", R"({"p":{"data":8,"dataLocal":3}})");
  for (const char* input : {"null", R"("3")", "[1]", "{}"}) {
    auto object = test::parse_json(std::string(R"({"a":)") + input + "}");
    auto native = expr::NativeExpression::parse(".a | floor");
    REQUIRE(native);
    INFO(input);
    CHECK_FALSE(native->run(*object.doc, false));
  }
}

// A term that binds variables emits while they are bound: the body after `as $y` must not see them (the catalog's
// KServe worker count nests binds this way; the native evaluator read the term's $r for $y).
TEST_CASE("a bind whose term binds its own variables: the body sees its own scope") {
  const std::string object = R"({"x":3,"y":{"a":1},"z":{"n":2}})";
  agree(".x as $p | (.y as $r | $r) as $w | (.z as $r | $r) as $h | $h", object);
  agree("(.y as $r | $r) as $w | (.z as $r | $r) as $h | $w", object);
  agree(".x as $p | (.y as $r | (.z as $q | $q.n) as $m | $m + $p) as $w | $w + $p", object);
  agree("(.y as $r | $r.a, $r.a + 1) as $w | $w * 10", object);
}

// jq 1.6 catches an error at a try's fork point wherever it is raised, also in what consumes the try's outputs
// (fuzz_native_vs_jq: the native engine let such errors through).
TEST_CASE("a try also catches an error raised downstream of it and ends its stream there (jq 1.6)") {
  const std::string object = R"({"a":1,"b":2})";
  agree("(.a)? | error(\"x\")", object, false);
  // Compared as the differential fuzzer compares: jq's try also swallows path()'s own error for these computed
  // outputs, so with locations jq gives nothing (engine_compare.h).
  for (const char* expression : {"(.a, .c, .b)? | . - 1", "(.a, .b)? | . - 1", ".a? | . - 1"}) {
    auto path = expr::PathExpression::compile(expression);
    REQUIRE(path);
    CHECK(path->is_native());
    auto parsed = test::parse_json(object);
    CHECK(test::disagreement(*path, parsed.root) == "");
  }
  // null - 1 fails at .c: the stream is 0, then ends without an error.
  auto parsed = test::parse_json(object);
  auto path = expr::PathExpression::compile("(.a, .c, .b)? | . - 1");
  auto native = path->evaluate_native(*parsed.doc, false);
  REQUIRE(native);
  CHECK(native->ok());
  REQUIRE(native->values.size() == 1);
  CHECK(native->values[0].json() == "0");
}
