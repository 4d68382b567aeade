// Memory under hostile input (issue 22): REQUESTS admissions of malformed objects of every catalog kind, sent to one
// `workload-map serve` over kept-alive TLS. Each is drawn, from its number and the seed, out of:
//   - an upstream manifest of the tests (every kind the catalog has) broken by 1 to 3 of fuzz_admission's
//     structured mutations (tests/fuzz/json_mutation.h): values the catalog reads swapped, nodes gone or repeated;
//   - such a manifest's AdmissionReview damaged byte by byte (cut short, bytes changed, bytes inserted);
//   - an input of fuzz_admission's corpus (tests/fuzz/corpus/admission), as it is.
// Creates and updates, to /mutate and /validate, under a policy that gives each namespace one of the built-in
// scheduler profiles with every limit on (and one namespace no rule matches). It prints the server's RSS after
// the first WARMUP admissions and at ten points after, and fails when RSS at rest at the end (once the server's
// periodic trim has run) exceeds RSS at rest after the warm-up by more than TOLERANCE (5%): a leak of a few bytes
// per admission shows within a million. The server must answer each one
// (200, or 400 for what is not an AdmissionReview) and still run at the end.
//
//   hostile_bench [--requests 1000000] [--warmup 10000] [--connections 8] [--tolerance 0.05] [--seed 1]
// CTest runs a smaller count of it.
#define CATCH_CONFIG_RUNNER
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mapper/catalog/documents.h"
#include "tests/bench/process_usage.h"
#include "tests/bench/test_manifests.h"
#include "tests/bench/tls_load.h"
#include "tests/fuzz/json_mutation.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {

struct Options {
  long requests = 1000000;
  long warmup = 10000;
  int connections = 8;
  double tolerance = 0.05;
  unsigned seed = 1;
} options;

// The scheduler profiles the server ships (manifests/base/policy.yaml).
const std::vector<std::string> kProfiles = [] {
  std::vector<std::string> names;
  for (const auto& profile : YAML::LoadFile(wm::test::source_path("manifests/base/policy.yaml"))["schedulerProfiles"])
    names.push_back(profile.first.as<std::string>());
  return names;
}();

// A namespace per profile, and one that no rule matches.
std::string namespace_name(size_t i) { return i < kProfiles.size() ? "hostile-" + kProfiles[i] : "free"; }

// One rule per profile, each with every limit on; half refuse what they cannot understand, half let it through.
std::string hostile_policy() {
  std::string rules;
  for (size_t i = 0; i < kProfiles.size(); ++i)
    rules += "- name: " + kProfiles[i] + "\n  namespaces: [" + namespace_name(i) + "]\n  profile: " + kProfiles[i] +
             "\n  queue: {fromLabel: q, default: research}\n  mutateOnUpdate: true\n" +
             "  failurePolicy: " + (i % 2 ? "Ignore" : "Fail") + "\n  podLabels: {team: a}\n  limits:\n" +
             "    resources: {nvidia.com/gpu: 8, cpu: 100}\n    maxPods: 64\n    requireQueue: true\n" +
             "    requireRequestsWithGPUs: true\n    forbidSchedulerOverride: true\n";
  return wm::test::policy_with_rules(rules);
}

std::vector<std::string> corpus_inputs() {
  std::vector<std::string> inputs;
  for (const char* dir : {"tests/fuzz/corpus/admission", "tests/fuzz/regressions/admission"})
    for (const auto& entry : fs::directory_iterator(wm::test::source_path(dir)))
      inputs.push_back(wm::test::read_file(entry.path().string()));
  return inputs;
}

std::string damaged(std::string text, std::mt19937& random) {
  switch (random() % 3) {
    case 0:
      text.resize(random() % (text.size() + 1));
      break;
    case 1:
      for (unsigned i = random() % 8 + 1; i > 0 && !text.empty(); --i)
        text[random() % text.size()] = static_cast<char>(random());
      break;
    default:
      text.insert(random() % (text.size() + 1), std::string(random() % 16 + 1, static_cast<char>(random())));
  }
  return text;
}

class HostileInputs {
 public:
  HostileInputs() : objects_(wm::bench::test_manifest_objects()), corpus_(corpus_inputs()) {}
  size_t objects() const { return objects_.size(); }
  size_t corpus() const { return corpus_.size(); }

  // The n-th request, the same for the same seed.
  std::string request(long n) const {
    std::mt19937 random(options.seed * 2654435761u + static_cast<unsigned>(n));
    const std::string path = n % 2 ? "/validate" : "/mutate";
    const unsigned draw = random() % 8;
    if (draw == 0) return wm::bench::http_post(path, corpus_[random() % corpus_.size()]);
    const std::string& original = objects_[random() % objects_.size()];
    std::string object = original;
    if (draw > 1)
      for (unsigned i = random() % 3 + 1; i > 0; --i)
        if (auto mutated = wm::fuzz::mutate_json(object, random)) object = std::move(*mutated);
    const bool update = random() % 4 == 0;
    std::string review = wm::test::admission_review(object, namespace_name(random() % (kProfiles.size() + 1)),
                                                    update ? "UPDATE" : "CREATE", "hostile-" + std::to_string(n),
                                                    update ? original : "");
    return wm::bench::http_post(path, draw == 1 ? damaged(std::move(review), random) : review);
  }

 private:
  std::vector<std::string> objects_, corpus_;
};

std::string format(const char* pattern, auto... values) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, values...);
  return buffer;
}

}  // namespace

TEST_CASE("hostile input: malformed admissions of every catalog kind leave the server's memory flat") {
  const HostileInputs inputs;
  REQUIRE(inputs.objects() > 0);
  REQUIRE(inputs.corpus() > 0);
  wm::test::ServerProcess server(
      {"--policy", wm::test::write_temp("hostile-policy.yaml", hostile_policy()), "--log-level", "error"});
  const wm::bench::LoadOptions load{server.port(), wm::test::test_certificates().ca, options.connections, 2};
  const auto request = [&inputs](long n) { return inputs.request(n); };

  std::printf(
      "workload-map under hostile input: %ld admissions of %zu manifests mutated or damaged and %zu fuzz "
      "corpus inputs, %d kept-alive TLS connections\n",
      options.requests, inputs.objects(), inputs.corpus(), options.connections);
  wm::bench::LoadResult total;
  auto add = [&total](const wm::bench::LoadResult& part) {
    for (const auto& [status, n] : part.statuses) total.statuses[status] += n;
    total.transport_errors += part.transport_errors;
    total.seconds += part.seconds;
  };
  // Memory at rest: once the server's periodic trim (every 10 s, webhook/server.h) has handed back what it freed.
  const auto at_rest = [&server] {
    std::this_thread::sleep_for(std::chrono::seconds(11));
    return wm::bench::process_usage(server.pid()).rss_mib;
  };
  add(wm::bench::run_load(load, 0, options.warmup, request));
  const double first_rss = wm::bench::process_usage(server.pid()).rss_mib;
  const double start_rss = at_rest();
  std::printf("  after %8ld: RSS %.1f MiB; at rest %.1f MiB\n", options.warmup, first_rss, start_rss);
  const long rest = options.requests - options.warmup;
  for (int step = 1; step <= 10; ++step) {
    const long from = options.warmup + rest * (step - 1) / 10, to = options.warmup + rest * step / 10;
    add(wm::bench::run_load(load, from, to - from, request));
    const double rss = wm::bench::process_usage(server.pid()).rss_mib;
    std::printf("  after %8ld: RSS %.1f MiB (%+.1f%%)\n", to, rss, 100 * (rss - start_rss) / start_rss);
    std::fflush(stdout);
  }
  const double end_rss = at_rest();
  std::printf("  at rest after %ld: RSS %.1f MiB (%+.1f%% from at rest after %ld)\n", options.requests, end_rss,
              100 * (end_rss - start_rss) / start_rss, options.warmup);
  long answered = 0;
  std::string statuses;
  for (const auto& [status, n] : total.statuses) {
    answered += n;
    statuses += format(" %ld x %d", n, status);
  }
  std::printf("  %.0f admissions/s; answers:%s; transport errors %ld\n", static_cast<double>(answered) / total.seconds,
              statuses.c_str(), total.transport_errors);
  CHECK(total.transport_errors == 0);
  CHECK(answered == options.requests);
  for (const auto& [status, n] : total.statuses) CHECK((status == 200 || status == 400));
  CHECK(server.running());
  CHECK(end_rss <= start_rss * (1 + options.tolerance));
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  using Catch::clara::Opt;
  session.cli(session.cli() | Opt(options.requests, "count")["--requests"]("admissions in all (1000000)") |
              Opt(options.warmup, "count")["--warmup"]("admissions before the first RSS reading (10000)") |
              Opt(options.connections, "count")["--connections"]("kept-alive TLS connections (8)") |
              Opt(options.tolerance, "fraction")["--tolerance"]("RSS growth allowed after the warm-up (0.05)") |
              Opt(options.seed, "number")["--seed"]("the inputs' seed (1)"));
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}
