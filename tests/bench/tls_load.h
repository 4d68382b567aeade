// A closed-loop load generator for the benchmarks: kept-alive TLS connections to a local server, each sending its
// next request as soon as the previous answer is read, until a fixed count has been sent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wm::bench {

struct LoadOptions {
  uint16_t port = 0;
  std::string ca;  // verify the server against it; empty: no verification
  int connections = 64;
  int client_threads = 1;
};

struct LoadResult {
  std::vector<double> latencies_us;  // one per answered request, unsorted
  std::map<int, long> statuses;      // HTTP status -> answers
  long transport_errors = 0;         // connections that failed (each stops)
  double seconds = 0;
};

// The serialized HTTP/1.1 POST of `body` to `path`.
std::string http_post(const std::string& path, const std::string& body);

// Sends requests first..first+count-1; `request(n)` gives the n-th serialized HTTP request. It is called on the
// client threads, concurrently when there are several.
LoadResult run_load(const LoadOptions& options, long first, long count,
                    const std::function<std::string(long)>& request);

// The p-th quantile (0..1) of sorted values.
double percentile(const std::vector<double>& sorted, double p);

}  // namespace wm::bench
