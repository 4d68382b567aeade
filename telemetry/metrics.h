// Prometheus metrics, rendered in the text exposition format on GET /metrics.
#pragma once

#include <array>
#include <atomic>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace wm {

// A metric family of the cluster side, named, typed and described once (controllers/cluster_metrics.h).
struct MetricFamily {
  std::string_view name, type, help;
};

class Metrics {
 public:
  // One admission or HTTP request: which endpoint, the admission operation, the object's kind, how it ended, how
  // long it took.
  void request(std::string_view endpoint, std::string_view operation, std::string_view kind, std::string_view outcome,
               double seconds);
  // Admission reviews being decided right now.
  void review_started() { ++in_flight_; }
  void review_finished() { --in_flight_; }
  // workload_map_build_info{version,revision} 1.
  void set_build_info(std::string version, std::string revision);
  void set_definitions(size_t n) { definitions_ = static_cast<long long>(n); }
  void set_certificate_expiry(double unix_seconds) { certificate_expiry_ = unix_seconds; }
  void reload(const std::string& what, bool ok);  // policy / definitions / certificate
  void connection_opened() { ++open_connections_; }
  void connection_closed() { --open_connections_; }
  void connection_refused() { ++refused_connections_; }
  void tls_failure() { ++tls_failures_; }

  // Series of the cluster side (controllers/): a gauge set, or a counter added to. `labels` is a list of
  // name/value pairs.
  using SeriesLabels = std::initializer_list<std::pair<std::string_view, std::string_view>>;
  void set_gauge(const MetricFamily& family, SeriesLabels labels, double value);
  void add_counter(const MetricFamily& family, SeriesLabels labels, double by = 1);
  // Every series of a gauge family at once, each a list of name/value label pairs and its value: a series not given
  // is gone (the namespace whose last workload went).
  using OwnedLabels = std::vector<std::pair<std::string, std::string>>;
  void replace_gauges(const MetricFamily& family, const std::vector<std::pair<OwnedLabels, double>>& series);
  // A family with no series yet: its HELP and TYPE are served from now on.
  void declare(const MetricFamily& family);

  std::string render() const;

  static constexpr std::array<double, 12> kBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                      0.005,   0.01,   0.025,   0.1,    0.5,   1.0};

 private:
  void render_requests(std::string& out) const;  // the request counters and the latency histograms; mutex_ held
  struct Histogram {
    std::array<long long, kBuckets.size() + 1> counts{};
    double sum = 0;
    long long count = 0;
  };
  mutable std::mutex mutex_;
  using Labels = std::tuple<std::string, std::string, std::string, std::string>;  // endpoint, operation, kind, outcome
  using LabelViews = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  // Compares labels as views, so that a request is counted without making strings once they are known.
  struct LabelsLess {
    using is_transparent = void;
    static LabelViews view(const Labels& l) { return {std::get<0>(l), std::get<1>(l), std::get<2>(l), std::get<3>(l)}; }
    static const LabelViews& view(const LabelViews& l) { return l; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
  };
  std::map<Labels, long long, LabelsLess> requests_;
  std::map<std::string, Histogram, std::less<>> latency_;             // by endpoint
  std::map<std::pair<std::string, std::string>, long long> reloads_;  // (what, ok|failed)
  std::map<std::string, int> config_healthy_;                         // 1 while the last reload of `what` worked
  struct Family {
    std::string type, help;
    std::map<std::string, double> series;  // by rendered label text
  };
  std::map<std::string, Family, std::less<>> families_;
  Family& family(const MetricFamily& f);  // with mutex_ held
  std::atomic<long long> definitions_{0};
  std::atomic<double> certificate_expiry_{0};
  std::atomic<long long> open_connections_{0}, refused_connections_{0}, tls_failures_{0}, in_flight_{0};
  std::string build_version_, build_revision_;  // set once, before serving
};

}  // namespace wm
