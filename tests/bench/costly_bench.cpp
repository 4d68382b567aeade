// The cost of one review whatever its body (issue 45): every upstream manifest of the tests (every catalog kind), with
// each number it holds replaced in turn by a string, a huge number, a float and a negative, then made wide (its first
// list repeated to near the API server's 3 MiB) and deep (10,000 levels, as the API server keeps in fields a CRD
// preserves), sent one at a time to a `workload-map serve` with ONE worker thread over TLS, under the shipped policy.
// Prints the slowest answers and the server's RSS; fails when an answer takes more than --max-ms (1000), is not an
// AdmissionReview, the RSS grows by more than --max-rss-mib (64), or the server is gone.
//
//   costly_bench [--variants all|some] [--max-ms 1000] [--max-rss-mib 64]
// CTest runs it with --variants some (a string, a huge number and a negative for each number).
#define CATCH_CONFIG_RUNNER
#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "tests/bench/process_usage.h"
#include "tests/bench/test_manifests.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

namespace {

struct Options {
  std::string variants = "all";
  double max_ms = 1000;
  double max_rss_mib = 64;
} options;

// The JSON pointers of every number in `e`.
void numbers_in(simdjson::dom::element e, const std::string& at, std::vector<std::string>& out) {
  if (e.is_number()) out.push_back(at);
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (e.get_object().get(object) == simdjson::SUCCESS)
    for (auto [key, value] : object) {
      std::string next = at;
      wm::json::append_pointer_token(next, key);
      numbers_in(value, next, out);
    }
  else if (e.get_array().get(array) == simdjson::SUCCESS) {
    size_t i = 0;
    for (auto value : array) numbers_in(value, at + "/" + std::to_string(i++), out);
  }
}

// `e` as JSON, with `replacement` (JSON text) in place of the value at `target`.
void write_replaced(simdjson::dom::element e, const std::string& at, const std::string& target,
                    const std::string& replacement, std::string& out) {
  if (at == target) {
    out += replacement;
    return;
  }
  if (target.compare(0, at.size(), at) != 0) {  // not on the way to the target
    out += simdjson::to_string(e);
    return;
  }
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (e.get_object().get(object) == simdjson::SUCCESS) {
    out += '{';
    bool first = true;
    for (auto [key, value] : object) {
      if (!first) out += ',';
      first = false;
      out += wm::json::json_string(key) + ":";
      std::string next = at;
      wm::json::append_pointer_token(next, key);
      write_replaced(value, next, target, replacement, out);
    }
    out += '}';
  } else if (e.get_array().get(array) == simdjson::SUCCESS) {
    out += '[';
    size_t i = 0;
    for (auto value : array) {
      if (i) out += ',';
      write_replaced(value, at + "/" + std::to_string(i++), target, replacement, out);
    }
    out += ']';
  } else {
    out += simdjson::to_string(e);
  }
}

// The first list in `e` (depth first) with an element, as a pointer; empty when none.
std::string first_list(simdjson::dom::element e, const std::string& at) {
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (e.get_array().get(array) == simdjson::SUCCESS && array.size() > 0) return at;
  if (e.get_object().get(object) == simdjson::SUCCESS)
    for (auto [key, value] : object) {
      std::string next = at;
      wm::json::append_pointer_token(next, key);
      if (std::string found = first_list(value, next); !found.empty()) return found;
    }
  return {};
}

// The list at `pointer` with its first element repeated to about `bytes`.
std::string widened(simdjson::dom::element root, const std::string& pointer, size_t bytes) {
  simdjson::dom::element list;
  if (root.at_pointer(pointer).get(list) != simdjson::SUCCESS) return {};
  const std::string item = simdjson::to_string(list.at(0).value());
  std::string wide = "[";
  for (size_t n = 0; wide.size() + item.size() < bytes; ++n) wide += (n ? "," : "") + item;
  wide += "]";
  std::string out;
  write_replaced(root, "", pointer, wide, out);
  return out;
}

// `object` with a field of `levels` nested lists beside its spec (under "spec" when it has one).
std::string deepened(const std::string& object, int levels) {
  const std::string deep =
      std::string(static_cast<size_t>(levels), '[') + std::string(static_cast<size_t>(levels), ']');
  const size_t spec = object.find("\"spec\":{");
  if (spec == std::string::npos) return object.substr(0, object.size() - 1) + ",\"deep\":" + deep + "}";
  return object.substr(0, spec + 8) + "\"deep\":" + deep + "," + object.substr(spec + 8);
}

struct Case {
  std::string what, object;
};

std::vector<Case> costly_cases(const std::vector<std::string>& objects) {
  std::vector<std::string> variants = {"\"1\"", "1000000000", "-3"};
  if (options.variants == "all")
    for (const char* v : {"1e18", "0.5", "\"1e9\"", "1.7976931348623157e308"}) variants.push_back(v);
  std::vector<Case> cases;
  simdjson::dom::parser parser;
  for (const auto& object : objects) {
    simdjson::dom::element root;
    if (parser.parse(object).get(root) != simdjson::SUCCESS || wm::json::string_member(root, "kind").empty()) continue;
    const std::string name = std::string(wm::json::string_member(root, "kind")) + " " +
                             std::string(root.at_pointer("/metadata/name").get_string().value_unsafe());
    std::vector<std::string> numbers;
    numbers_in(root, "", numbers);
    for (const auto& at : numbers)
      for (const auto& v : variants) {
        Case c{name + " " + at + " = " + v, {}};
        write_replaced(root, "", at, v, c.object);
        cases.push_back(std::move(c));
      }
    if (std::string list = first_list(root, ""); !list.empty())
      cases.push_back({name + " " + list + " repeated to 2.5 MiB", widened(root, list, 2'500'000)});
    cases.push_back({name + " 10,000 levels deep", deepened(object, 10'000)});
  }
  return cases;
}

struct Slow {
  double ms;
  std::string what;
};

}  // namespace

TEST_CASE("costly input: every count of every catalog kind made hostile is answered in time, in bounded memory") {
  const std::vector<Case> cases = costly_cases(wm::bench::test_manifest_objects());
  REQUIRE(cases.size() > 1000);
  const std::string policy = wm::test::read_file(wm::test::source_path("manifests/base/policy.yaml"));
  wm::test::ServerProcess server(
      {"--threads", "1", "--log-level", "error", "--policy", wm::test::write_temp("costly-policy.yaml", policy)});
  auto client = std::make_unique<wm::test::HttpsClient>(server.port());
  REQUIRE(client->post("/mutate", wm::test::admission_review(cases.front().object, "team-a")).status == 200);
  const double start_rss = wm::bench::process_usage(server.pid()).rss_mib;
  std::vector<Slow> slowest;
  long not_reviews = 0;
  std::string first_bad;
  for (size_t n = 0; n < cases.size(); ++n) {
    const std::string review =
        wm::test::admission_review(cases[n].object, "team-a", "CREATE", "costly-" + std::to_string(n));
    if (std::getenv("COSTLY_TRACE")) std::fprintf(stderr, "%zu %s\n", n, cases[n].what.c_str());
    const auto began = std::chrono::steady_clock::now();
    wm::test::HttpResponse answer;
    try {
      answer = client->post(n % 2 ? "/validate" : "/mutate", review);
    } catch (const std::exception& e) {  // the connection closed: counted, and a new one for the rest
      answer.body = std::string("the connection failed: ") + e.what();
      if (!server.running()) FAIL("the server is gone after " << cases[n].what << ":\n" << server.log());
      client = std::make_unique<wm::test::HttpsClient>(server.port());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    if (answer.status != 200 || answer.body.find("\"kind\":\"AdmissionReview\"") == std::string::npos) {
      if (not_reviews++ == 0)
        first_bad = cases[n].what + ": HTTP " + std::to_string(answer.status) + " " + answer.body.substr(0, 200);
    }
    slowest.push_back({ms, cases[n].what});
    std::sort(slowest.begin(), slowest.end(), [](const Slow& a, const Slow& b) { return a.ms > b.ms; });
    if (slowest.size() > 5) slowest.pop_back();
  }
  const double peak_rss = wm::bench::process_usage(server.pid()).rss_mib;
  std::this_thread::sleep_for(std::chrono::seconds(11));  // the server's periodic trim (webhook/server.h)
  const double end_rss = wm::bench::process_usage(server.pid()).rss_mib;
  std::printf("workload-map under costly input: %zu admissions of the tests' manifests (%s variants), one worker\n",
              cases.size(), options.variants.c_str());
  for (const auto& s : slowest) std::printf("  %8.1f ms  %s\n", s.ms, s.what.c_str());
  std::printf("  RSS %.1f MiB before, %.1f MiB after the last, %.1f MiB at rest (%+.1f MiB)\n", start_rss, peak_rss,
              end_rss, end_rss - start_rss);
  INFO(first_bad);
  CHECK(not_reviews == 0);
  CHECK(slowest.front().ms <= options.max_ms);
  CHECK(end_rss - start_rss <= options.max_rss_mib);
  CHECK(server.running());
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  using Catch::clara::Opt;
  session.cli(session.cli() |
              Opt(options.variants, "all|some")["--variants"]("which values replace each number (all)") |
              Opt(options.max_ms, "ms")["--max-ms"]("the longest answer allowed (1000)") |
              Opt(options.max_rss_mib, "MiB")["--max-rss-mib"]("the RSS growth allowed (64)"));
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}
