#include "telemetry/metrics.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using wm::Metrics;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The /mutate request counter's line for these labels, with a count of 1.
std::string series(const std::string& operation, const std::string& kind, const std::string& outcome) {
  return R"(workload_map_requests_total{endpoint="mutate",operation=")" + operation + R"(",kind=")" + kind +
         R"(",outcome=")" + outcome + R"("} 1)";
}

}  // namespace

TEST_CASE("metrics: labels a client makes up are counted as other, so the series stay bounded") {
  Metrics metrics;
  metrics.request("mutate", "CREATE", "JobSet", "patched", 0.001);
  metrics.request("mutate", "PATCH-ME", "JobSet", "skipped", 0.001);
  metrics.request("mutate", "CREATE", std::string(64, 'K'), "unknown-kind", 0.001);
  for (int i = 0; i < 5000; ++i) metrics.request("validate", "CREATE", "Kind" + std::to_string(i), "no-rule", 0.001);
  const std::string text = metrics.render();
  CHECK(count(text, series("CREATE", "JobSet", "patched")) == 1);
  CHECK(count(text, series("other", "JobSet", "skipped")) == 1);
  CHECK(count(text, series("CREATE", "other", "unknown-kind")) == 1);
  CHECK(count(text, "workload_map_requests_total{") == 1000 + 1);  // the bound, and the one "other" past it
  CHECK(count(text, R"(kind="other",outcome="no-rule"} 4003)") == 1);
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// The value of an unlabelled series in `text`, or -1.
double series_value(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

}  // namespace

TEST_CASE("metrics: the process's memory, CPU and descriptors, and what the heap holds") {
  Metrics metrics;
  const std::string before = metrics.render();
  CHECK(series_value(before, "process_resident_memory_bytes") > 1 << 20);
  CHECK(series_value(before, "process_cpu_seconds_total") > 0);
  CHECK(series_value(before, "process_open_fds") >= 3);
  CHECK(series_value(before, "workload_map_heap_free_bytes") >= 0);
  const double allocated = series_value(before, "workload_map_heap_allocated_bytes");
  std::vector<char> held(8 << 20, 'x');
  // The heap series are glibc's (mallinfo2); under AddressSanitizer, whose allocator serves every malloc, they stay
  // where glibc's own arena is.
  if (!kAddressSanitizer)
    CHECK(series_value(metrics.render(), "workload_map_heap_allocated_bytes") >= allocated + (8 << 20));
  CHECK(held.back() == 'x');
}
