// A Prometheus histogram read from a /metrics text, summed over every series whose labels include the given ones,
// and its quantiles as Prometheus' histogram_quantile() computes them (linear within a bucket). Two reads subtract,
// so that a benchmark sees only what happened between them.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wm::bench {

struct Histogram {
  std::vector<std::pair<double, double>> buckets;  // (upper bound, cumulative count), +Inf last
  double count() const { return buckets.empty() ? 0 : buckets.back().second; }
  // The q-quantile, interpolated; and the upper bound of the bucket it falls in (what the data can vouch for).
  double quantile(double q) const;
  double bucket_bound(double q) const;
  Histogram minus(const Histogram& earlier) const;
};

// `labels`: label="value" pairs every series must hold, e.g. {"name=\"mutate.example\"", "type=\"admit\""}.
Histogram read_histogram(const std::string& metrics_text, const std::string& name,
                         const std::vector<std::string>& labels);

}  // namespace wm::bench
