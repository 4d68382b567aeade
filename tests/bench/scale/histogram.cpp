#include "tests/bench/scale/histogram.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace wm::bench {

Histogram read_histogram(const std::string& metrics_text, const std::string& name,
                         const std::vector<std::string>& labels) {
  std::map<double, double> by_bound;
  const std::string prefix = name + "_bucket{";
  std::istringstream lines(metrics_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t close = line.rfind('}');
    const std::string series = line.substr(0, close);
    bool wanted = true;
    for (const auto& l : labels) wanted = wanted && series.find(l) != std::string::npos;
    const size_t le = series.find("le=\"");
    if (!wanted || le == std::string::npos) continue;
    const std::string bound = series.substr(le + 4, series.find('"', le + 4) - le - 4);
    const double upper = bound == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(bound);
    by_bound[upper] += std::stod(line.substr(close + 1));
  }
  Histogram h;
  h.buckets.assign(by_bound.begin(), by_bound.end());
  return h;
}

Histogram Histogram::minus(const Histogram& earlier) const {
  Histogram out = *this;
  for (auto& [bound, count] : out.buckets)
    for (const auto& [b, c] : earlier.buckets)
      if (b == bound) count -= c;
  return out;
}

namespace {

// The bucket holding the q-quantile's rank, and the rank.
size_t bucket_of(const Histogram& h, double q, double& rank) {
  rank = q * h.count();
  size_t i = 0;
  while (i + 1 < h.buckets.size() && h.buckets[i].second < rank) ++i;
  return i;
}

}  // namespace

double Histogram::quantile(double q) const {
  if (count() == 0) return std::nan("");
  double rank;
  const size_t i = bucket_of(*this, q, rank);
  const double upper = buckets[i].first;
  if (std::isinf(upper)) return i > 0 ? buckets[i - 1].first : std::nan("");  // as Prometheus: the last finite bound
  const double lower = i > 0 ? buckets[i - 1].first : 0, below = i > 0 ? buckets[i - 1].second : 0;
  const double in_bucket = buckets[i].second - below;
  return in_bucket <= 0 ? upper : lower + (upper - lower) * (rank - below) / in_bucket;
}

double Histogram::bucket_bound(double q) const {
  if (count() == 0) return std::nan("");
  double rank;
  return buckets[bucket_of(*this, q, rank)].first;
}

}  // namespace wm::bench
