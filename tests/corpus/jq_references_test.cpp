// Every catalog expression that reaches libjq, over malformed variants of every upstream manifest (each array and
// object in turn made an object of two strings, each array an object of its elements): once the view is
// built, every string, array and object of the object's jv is referenced by the object alone. jq 1.6 leaks an object
// key when an error stops `[]` over an object with keys still to go (docs/definitions.md), and the mutating webhook
// sees objects before schema validation does: an array a user writes as an object must not leak on every admission.
// This finds such an expression in any build, without LeakSanitizer and without waiting for a fuzzer to find it.
extern "C" {
#include <jv.h>
}

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "mapper/expr/jq_input.h"
#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

using namespace wm;

namespace {

// Calls `visit` with the path and kind of every non-empty array and object in `value`; consumes `value`.
void each_container(jv value, jv path, const std::function<void(jv, jv_kind)>& visit) {
  const jv_kind kind = jv_get_kind(value);
  if (kind == JV_KIND_ARRAY) {
    if (jv_array_length(jv_copy(value)) > 0) visit(jv_copy(path), kind);
    jv_array_foreach(value, i, element) each_container(element, jv_array_append(jv_copy(path), jv_number(i)), visit);
  } else if (kind == JV_KIND_OBJECT) {
    if (jv_object_length(jv_copy(value)) > 0) visit(jv_copy(path), kind);
    jv_object_foreach(value, key, member) each_container(member, jv_array_append(jv_copy(path), key), visit);
  }
  jv_free(value);
  jv_free(path);
}

// The first place in `value` referenced from elsewhere too ("" when none); `value` is borrowed. `expected`: the
// references it should have (its parent's, and one more for a copy the caller took to look at it).
std::string shared_reference(jv value, int expected) {
  const jv_kind kind = jv_get_kind(value);
  if (kind != JV_KIND_STRING && kind != JV_KIND_ARRAY && kind != JV_KIND_OBJECT) return "";  // not counted
  if (jv_get_refcnt(value) != expected)
    return "referenced " + std::to_string(jv_get_refcnt(value) - expected + 1) + " times";
  std::string found;
  if (kind == JV_KIND_ARRAY) {
    jv_array_foreach(value, i, element) {
      if (found.empty()) {
        found = shared_reference(element, 2);
        if (!found.empty()) found = "/" + std::to_string(i) + (found[0] == '/' ? "" : ": ") + found;
      }
      jv_free(element);
    }
  } else if (kind == JV_KIND_OBJECT) {
    jv_object_foreach(value, key, member) {
      const std::string name = jv_string_value(key);
      if (found.empty() && jv_get_refcnt(key) != 2) found = "/" + name + ": its key is referenced elsewhere";
      if (found.empty()) {
        found = shared_reference(member, 2);
        if (!found.empty()) found = "/" + name + (found[0] == '/' ? "" : ": ") + found;
      }
      jv_free(key);
      jv_free(member);
    }
  }
  return found;
}

struct Variant {
  std::string label, json;
};

// Each non-empty array or object of `object` made an object of two strings (a field read on them fails at once);
// each array also an object of its first element twice (the expression gets further before it fails, or does not).
std::vector<Variant> malformed_variants(const std::string& object) {
  std::vector<Variant> out;
  jv parsed = jv_parse(object.c_str());
  auto add = [&](const std::string& label, jv path, jv replacement) {
    jv variant = jv_dump_string(jv_setpath(jv_copy(parsed), path, replacement), 0);
    out.push_back({label, jv_string_value(variant)});
    jv_free(variant);
  };
  each_container(jv_copy(parsed), jv_array(), [&](jv path, jv_kind kind) {
    jv text = jv_dump_string(jv_copy(path), 0);
    const std::string where = jv_string_value(text);
    jv_free(text);
    add(where + " as an object of two strings", jv_copy(path),
        jv_object_set(jv_object_set(jv_object(), jv_string("a"), jv_string("x")), jv_string("b"), jv_string("y")));
    if (kind == JV_KIND_ARRAY) {
      jv first = jv_array_get(jv_getpath(jv_copy(parsed), jv_copy(path)), 0);
      add(where + " as an object of its first element twice", jv_copy(path),
          jv_object_set(jv_object_set(jv_object(), jv_string("a"), jv_copy(first)), jv_string("b"), first));
    }
    jv_free(path);
  });
  jv_free(parsed);
  return out;
}

}  // namespace

TEST_CASE(
    "no catalog expression left to jq keeps a reference to a malformed object (jq 1.6's leak in [] over objects)") {
  std::vector<std::pair<std::string, std::string>> files;  // directory, file
  for (const auto& file : test::corpus_files()) files.emplace_back(test::corpus_dir(), file);
  const std::string fixtures = test::source_path("tests/fixtures/upstream");
  for (const auto& file : test::yaml_files_under(fixtures)) files.emplace_back(fixtures, file);
  size_t variants = 0, through_jq = 0;
  for (const auto& [dir, file] : files)
    for (auto& object : test::parse_file(dir + "/" + file)) {
      auto match = test::builtin_catalog().find(object.api_version, object.kind);
      if (!match.definition) continue;
      for (const auto& variant : malformed_variants(simdjson::to_string(object.root))) {
        // Every expression admission, the cluster side and inspect evaluate, under each named minimum rule.
        for (const char* minimums : {"", "kai", "kuberay", "spark-operator"}) {
          test::ParsedObject malformed = test::parse_json(variant.json, file);
          view::build_view(
              *match.definition, *malformed.doc,
              {.status = true, .minimums = minimums, .inspect_detail = true, .catalog = &test::builtin_catalog()});
          ++variants;
          if (!malformed.doc->engine_copy()) continue;  // every expression was native: jq never saw the object
          ++through_jq;
          INFO(file << ": " << object.kind << " " << object.name << ", " << variant.label << ", minimums '" << minimums
                    << "'");
          CHECK(shared_reference(expr::jq_input(*malformed.doc).value, 1) == "");
        }
      }
    }
  INFO(through_jq << " of " << variants << " views of malformed objects reached jq");
  CHECK(through_jq > 100);
}
