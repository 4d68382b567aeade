// Server-side work per admission request, without the network: webhook::review() (parse the
// AdmissionReview, build the view, make the patch, write the response) over the load benchmark's
// mix, with the built-in catalog and policy. Prints the median and p99 time and the heap
// allocations per review, for each kind of the mix.
//   review_bench [ITERATIONS]      (default 20000 per kind)
// For instruction counts that do not depend on the machine's load: tests/bench/review_instructions.sh
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "tests/bench/admission_mix.h"
#include "webhook/admission.h"

namespace {

std::atomic<long> allocations{0};

}  // namespace

// Counts every C++ heap allocation of the process (the figure printed is the count during review()).
void* operator new(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  wm::yaml::Diagnostics errors;
  wm::policy::AdmissionState state;
  state.catalog = std::make_shared<const wm::catalog::Catalog>(wm::catalog::Catalog::embedded(errors));
  state.policy = std::make_shared<const wm::policy::Policy>(wm::policy::Policy::builtin());
  if (!errors.empty()) {
    std::fprintf(stderr, "catalog: %s\n", errors.front().str().c_str());
    return 1;
  }
  state.catalog->warm_up();
  simdjson::dom::parser parser;

  std::printf("%-18s %8s %10s %10s %12s %10s  %s\n", "kind", "bytes", "median", "p99", "allocations", "response",
              "outcome");
  std::vector<double> all;
  for (const auto& entry : wm::bench::admission_mix(WM_SOURCE_DIR, WM_CORPUS_DIR)) {
    std::vector<double> times;
    times.reserve(static_cast<size_t>(iterations));
    wm::webhook::AdmissionResult result;
    long allocated = 0;
    for (int i = 0; i < iterations; ++i) {
      const long before = allocations.load(std::memory_order_relaxed);
      auto t0 = Clock::now();
      result = wm::webhook::review(wm::webhook::Endpoint::Mutate, entry.review, state, parser);
      times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      allocated = allocations.load(std::memory_order_relaxed) - before;
    }
    if (result.http_status != 200) {
      std::fprintf(stderr, "%s: HTTP %d: %s\n", entry.label.c_str(), result.http_status, result.body.c_str());
      return 1;
    }
    all.insert(all.end(), times.begin(), times.end());
    std::sort(times.begin(), times.end());
    std::printf("%-18s %8zu %8.2fus %8.2fus %12ld %10zu  %s\n", entry.label.c_str(), entry.review.size(),
                times[times.size() / 2], times[times.size() * 99 / 100], allocated, result.body.size(),
                std::string(wm::webhook::outcome_name(result.outcome)).c_str());
  }
  std::sort(all.begin(), all.end());
  std::printf("\nmix: median %.2fus, p99 %.2fus per review over %zu reviews, one thread\n", all[all.size() / 2],
              all[all.size() * 99 / 100], all.size());
  return 0;
}
