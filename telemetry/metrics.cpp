#include "telemetry/metrics.h"

#include <cstdio>

#include "telemetry/process_metrics.h"

namespace wm {

namespace {

std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The operation and kind labels come from the request, which a client other than the API server can fill with
// anything. An operation admission does not define, and a kind longer than Kubernetes allows (a DNS label), are
// counted as "other"; so is every new kind once kMaxRequestSeries series exist. Neither memory nor a scrape then
// grows with what clients make up.
constexpr size_t kMaxRequestSeries = 1000;
constexpr size_t kMaxKindLength = 63;

std::string_view operation_label(std::string_view operation) {
  for (std::string_view known : {"CREATE", "UPDATE", "DELETE", "CONNECT", ""})
    if (operation == known) return operation;
  return "other";
}

// A family's HELP and TYPE lines.
void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
  out.append(type).append("\n");
}

// A family of one series without labels.
void single(std::string& out, std::string_view name, std::string_view type, std::string_view help,
            const std::string& value) {
  header(out, name, type, help);
  out.append(name).append(" ").append(value).append("\n");
}

}  // namespace

void Metrics::request(std::string_view endpoint, std::string_view operation, std::string_view kind,
                      std::string_view outcome, double seconds) {
  std::lock_guard lock(mutex_);
  LabelViews labels{endpoint, operation_label(operation), kind.size() > kMaxKindLength ? "other" : kind, outcome};
  auto counter = requests_.find(labels);
  if (counter == requests_.end() && requests_.size() >= kMaxRequestSeries) {
    std::get<2>(labels) = "other";
    counter = requests_.find(labels);
  }
  if (counter == requests_.end())
    counter = requests_
                  .emplace(std::make_tuple(std::string(std::get<0>(labels)), std::string(std::get<1>(labels)),
                                           std::string(std::get<2>(labels)), std::string(std::get<3>(labels))),
                           0)
                  .first;
  ++counter->second;
  auto histogram = latency_.find(endpoint);
  if (histogram == latency_.end()) histogram = latency_.emplace(std::string(endpoint), Histogram{}).first;
  Histogram& h = histogram->second;
  size_t i = 0;
  while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
  ++h.counts[i];
  h.sum += seconds;
  ++h.count;
}

void Metrics::set_build_info(std::string version, std::string revision) {
  std::lock_guard lock(mutex_);
  build_version_ = std::move(version);
  build_revision_ = std::move(revision);
}

void Metrics::reload(const std::string& what, bool ok) {
  std::lock_guard lock(mutex_);
  ++reloads_[{what, ok ? "ok" : "failed"}];
  config_healthy_[what] = ok ? 1 : 0;
}

namespace {

template <class Labels>
std::string label_text(const Labels& labels) {
  std::string out;
  for (const auto& [name, value] : labels)
    out += std::string(out.empty() ? "{" : ",") + std::string(name) + "=\"" + label_value(std::string(value)) + "\"";
  return out.empty() ? out : out + "}";
}

}  // namespace

Metrics::Family& Metrics::family(const MetricFamily& f) {
  auto it = families_.find(f.name);
  if (it == families_.end())
    it = families_.emplace(std::string(f.name), Family{std::string(f.type), std::string(f.help), {}}).first;
  return it->second;
}

void Metrics::set_gauge(const MetricFamily& f, SeriesLabels labels, double value) {
  std::lock_guard lock(mutex_);
  family(f).series[label_text(labels)] = value;
}

void Metrics::replace_gauges(const MetricFamily& f, const std::vector<std::pair<OwnedLabels, double>>& series) {
  std::map<std::string, double> rendered;
  for (const auto& [labels, value] : series) rendered[label_text(labels)] = value;
  std::lock_guard lock(mutex_);
  family(f).series = std::move(rendered);
}

void Metrics::declare(const MetricFamily& f) {
  std::lock_guard lock(mutex_);
  family(f);
}

void Metrics::add_counter(const MetricFamily& f, SeriesLabels labels, double by) {
  std::lock_guard lock(mutex_);
  family(f).series[label_text(labels)] += by;
}

void Metrics::render_requests(std::string& out) const {
  header(out, "workload_map_requests_total", "counter",
         "Requests by endpoint, admission operation, object kind and outcome.");
  for (const auto& [key, n] : requests_) {
    const auto& [endpoint, operation, kind, outcome] = key;
    out += "workload_map_requests_total{endpoint=\"" + label_value(endpoint) + "\",operation=\"" +
           label_value(operation) + "\",kind=\"" + label_value(kind) + "\",outcome=\"" + label_value(outcome) + "\"} " +
           std::to_string(n) + "\n";
  }
  header(out, "workload_map_request_duration_seconds", "histogram", "Time from a complete request to its response.");
  for (const auto& [endpoint, h] : latency_) {
    long long cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.counts[i];
      out += "workload_map_request_duration_seconds_bucket{endpoint=\"" + label_value(endpoint) + "\",le=\"" +
             number(kBuckets[i]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    cumulative += h.counts[kBuckets.size()];
    out += "workload_map_request_duration_seconds_bucket{endpoint=\"" + label_value(endpoint) + "\",le=\"+Inf\"} " +
           std::to_string(cumulative) + "\n";
    out +=
        "workload_map_request_duration_seconds_sum{endpoint=\"" + label_value(endpoint) + "\"} " + number(h.sum) + "\n";
    out += "workload_map_request_duration_seconds_count{endpoint=\"" + label_value(endpoint) + "\"} " +
           std::to_string(h.count) + "\n";
  }
}

std::string Metrics::render() const {
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, f] : families_) {
    header(out, name, f.type, f.help);
    for (const auto& [labels, value] : f.series) out += name + labels + " " + number(value) + "\n";
  }
  header(out, "workload_map_build_info", "gauge", "The release and commit of this binary.");
  out += "workload_map_build_info{version=\"" + label_value(build_version_) + "\",revision=\"" +
         label_value(build_revision_) + "\"} 1\n";
  render_requests(out);
  single(out, "workload_map_definitions_loaded", "gauge", "Workload definitions in the live catalog.",
         std::to_string(definitions_.load()));
  single(out, "workload_map_certificate_expiry_timestamp_seconds", "gauge", "When the serving certificate expires.",
         number(certificate_expiry_.load()));
  header(out, "workload_map_config_reloads_total", "counter", "Reloads of the policy, definitions and certificate.");
  for (const auto& [key, n] : reloads_)
    out += "workload_map_config_reloads_total{config=\"" + label_value(key.first) + "\",result=\"" + key.second +
           "\"} " + std::to_string(n) + "\n";
  header(out, "workload_map_config_last_reload_ok", "gauge",
         "1 while the last reload worked; 0: the last good one is live.");
  for (const auto& [what, ok] : config_healthy_)
    out += "workload_map_config_last_reload_ok{config=\"" + label_value(what) + "\"} " + std::to_string(ok) + "\n";
  single(out, "workload_map_admission_in_flight", "gauge", "Admission reviews being decided now.",
         std::to_string(in_flight_.load()));
  single(out, "workload_map_open_connections", "gauge", "Open connections to the webhook port.",
         std::to_string(open_connections_.load()));
  single(out, "workload_map_refused_connections_total", "counter",
         "Connections closed at once, beyond --max-connections.", std::to_string(refused_connections_.load()));
  single(out, "workload_map_tls_handshake_failures_total", "counter",
         "Connections that failed TLS, or spoke plain HTTP.", std::to_string(tls_failures_.load()));
  out += render_process_metrics();
  return out;
}

}  // namespace wm
