// libFuzzer, differential: the native evaluator against libjq, on the same expression and the same object. Any
// disagreement on a value, a location or an error aborts (a crash for libFuzzer).
// Input: a jq expression, a newline, a JSON document. Expressions outside the native subset have nothing to compare
// and are skipped at once; the others are compiled for libjq once each (jq 1.6 takes about 17 ms a program) and
// kept. Results that an engine stopped for its budget are not compared: the budgets differ (steps, time). Nor are
// documents with a key twice, which the API server never sends (see has_duplicate_keys).
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "mapper/expr/path_expression.h"
#include "tests/support/engine_compare.h"

namespace {

const wm::expr::PathExpression* compiled(const std::string& source) {
  static std::map<std::string, std::optional<wm::expr::PathExpression>> cache;
  if (cache.size() > 2000) cache.clear();  // bounded memory over a long run
  auto [it, added] = cache.try_emplace(source);
  if (added && wm::expr::NativeExpression::parse(source)) {
    auto path = wm::expr::PathExpression::compile(source);
    if (!path) {  // the native subset took an expression jq refuses: a disagreement too
      std::fprintf(stderr, "the native evaluator takes %s, which jq refuses: %s\n", source.c_str(),
                   path.error().c_str());
      std::abort();
    }
    it->second = std::move(*path);
  }
  return it->second ? &*it->second : nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = wm::test::split_case(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!input) return 0;
  const wm::expr::PathExpression* path = compiled(input->expression);
  if (!path || !path->is_native()) return 0;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(input->document.data(), input->document.size()).get(root) != simdjson::SUCCESS) return 0;
  if (wm::test::has_duplicate_keys(root)) return 0;
  const std::string differs = wm::test::disagreement(*path, root);
  if (!differs.empty()) {
    std::fprintf(stderr, "native and jq disagree on %s\n", differs.c_str());
    std::abort();
  }
  return 0;
}
