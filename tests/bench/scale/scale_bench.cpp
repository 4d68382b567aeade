// The cluster side at scale (issue 22): WORKLOADS workloads of the catalog's kinds (tests/bench/scale/workload_mix)
// created through the API server at a fixed rate by a bounded load generator, under a gang profile whose PodGroups
// the webhook's cluster side writes, on fake GPU nodes with the profile's real scheduler. It prints:
//   - the webhook's admission latency as the API server measures it (its own histogram), and the creates' round trip;
//   - the time from each create to its workload's first PodGroup: p50, p99, max, and PodGroups per second;
//   - the webhook's RSS and CPU before the storm and at a quarter, half and all of the workloads;
//   - after every workload is deleted: when the garbage collector has removed the PodGroups, and the RSS then.
// And it checks, as a test, what must hold at any size: every workload got exactly the PodGroups
// `inspect --profile` gives it, owned by it, none twice and no orphans; the scheduler ran every pod; deleting the
// workloads removed every PodGroup.
//
//   scale_bench [--workloads N] [--rate PER_SECOND] [--profile volcano|coscheduling] [--pods-timeout SECONDS]
// against the scheduler bed (WM_CLUSTER_DIR; tests/bench/scale/run.sh starts one of its own). CTest runs a small
// size of it in the `schedulers` suite.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "kube/client.h"
#include "kube/config.h"
#include "tests/bench/process_usage.h"
#include "tests/bench/scale/histogram.h"
#include "tests/bench/scale/pod_group_watch.h"
#include "tests/bench/scale/workload_mix.h"
#include "tests/cluster/scheduler_bed.h"
#include "tests/support/server_process.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int workloads = 60;
  double rate = 20;  // creates per second
  std::string profile = "volcano";
  int pods_timeout = 300;  // seconds for the scheduler to run every pod
  int senders = 4;         // creates in flight at most
} options;

struct PodGroupResource {
  std::string path, api_version;
};
// Where each gang profile's PodGroups live (manifests/base/policy.yaml).
const std::map<std::string, PodGroupResource> kPodGroups = {
    {"volcano", {"/apis/scheduling.volcano.sh/v1beta1/podgroups", "scheduling.volcano.sh/v1beta1"}},
    {"coscheduling", {"/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "scheduling.x-k8s.io/v1alpha1"}}};

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// workload_map_heap_WHICH_bytes (allocated or free) in a /metrics text, in MiB; -1 when it is missing.
double heap_mib(const std::string& metrics, const std::string& which) {
  const std::string name = "\nworkload_map_heap_" + which + "_bytes ";
  const size_t at = metrics.find(name);
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + name.size())) / (1 << 20);
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(q * static_cast<double>(values.size())))];
}

std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c, d);
  return buffer;
}

std::unique_ptr<wm::kube::Client> cluster_client() {
  auto config = wm::kube::config_from_kubeconfig(wm::test::Cluster::get().kubeconfig());
  INFO(config.error());
  REQUIRE(config);
  auto client = wm::kube::Client::make(*config);
  INFO(client.error());
  REQUIRE(client);
  return std::move(*client);
}

std::string api_server_metrics() {
  auto r = wm::test::Cluster::get().kubectl({"get", "--raw", "/metrics"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

// This webhook's admission latency as the API server measured it between two scrapes.
std::string admission_line(const std::string& before, const std::string& after, const std::string& webhook,
                           const std::string& type) {
  const std::string metric = "apiserver_admission_webhook_admission_duration_seconds";
  const std::vector<std::string> labels = {"name=\"" + webhook + "\"", "type=\"" + type + "\""};
  const auto h =
      wm::bench::read_histogram(after, metric, labels).minus(wm::bench::read_histogram(before, metric, labels));
  return format("%6.0f calls  p50 %6.2f ms (bucket <= %g ms)", h.count(), 1000 * h.quantile(0.5),
                1000 * h.bucket_bound(0.5)) +
         format("  p99 %6.2f ms (bucket <= %g ms)", 1000 * h.quantile(0.99), 1000 * h.bucket_bound(0.99));
}

struct Sample {
  Clock::time_point at;
  size_t created = 0, with_pod_groups = 0;
  wm::bench::ProcessUsage usage;
};

struct Created {
  Clock::time_point sent, answered;
  int status = 0;
  std::string error;
};

// Sends one request per workload, `per_second` of them a second (later when the server is slower), at most
// options.senders at once.
std::vector<Created> send_all(wm::kube::Client& client, const std::vector<wm::bench::Workload>& workloads,
                              double per_second, const std::string& method, std::atomic<size_t>& done) {
  std::vector<Created> out(workloads.size());
  std::atomic<size_t> next{0};
  const auto start = Clock::now();
  std::vector<std::thread> senders;
  for (int s = 0; s < options.senders; ++s)
    senders.emplace_back([&] {
      for (size_t i; (i = next++) < workloads.size();) {
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(static_cast<double>(i) / per_second)));
        const auto& w = workloads[i];
        out[i].sent = Clock::now();
        const auto r = method == "POST" ? client.request("POST", w.resource_path, w.json)
                                        : client.request("DELETE", w.resource_path + "/" + w.name,
                                                         R"({"propagationPolicy":"Background"})");
        out[i].answered = Clock::now();
        out[i].status = r.status;
        if (!r.ok()) out[i].error = r.describe();
        ++done;
      }
    });
  for (auto& t : senders) t.join();
  return out;
}

std::pair<int, int> running_pods(const std::string& ns) {
  auto r = wm::test::Cluster::get().kubectl(
      {"get", "pods", "-n", ns, "--no-headers", "-o", "custom-columns=PHASE:.status.phase"});
  int total = 0, running = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    ++total;
    running += line == "Running";
  }
  return {total, running};
}

}  // namespace

TEST_CASE("scale: workloads created at a fixed rate get their PodGroups, run whole and leave none behind") {
  using namespace wm::test;
  const Options& o = options;
  REQUIRE(kPodGroups.count(o.profile));
  start_scheduler(o.profile);
  start_operator("training-operator");
  const std::string label = "scale-" + o.profile;
  const std::string pool = node_pool(label);
  const std::string ns = make_namespace(label, true);
  const auto workloads = wm::bench::workload_mix(o.workloads, ns, pool);
  int pods = 0;
  std::map<std::string, int> kinds;
  for (const auto& w : workloads) pods += w.pods, ++kinds[w.kind];
  constexpr int kGpusPerNode = 100;  // and 110 pods a node: every pod fits
  add_nodes(pool, pods / kGpusPerNode + 1, kGpusPerNode);
  const double pods_total = pods;

  const std::string policy = policy_for(ns, o.profile);
  RegisteredWebhook webhook(policy, "base", cluster_side_args(label));
  const pid_t pid = webhook.server().pid();
  // A connection per scrape: the server closes idle ones.
  auto webhook_metrics = [&] { return HttpsClient(webhook.server().port()).get("/metrics").body; };
  REQUIRE(eventually(
      [&] {
        const std::string text = webhook_metrics();
        return text.find("workload_map_leader 1") != std::string::npos &&
               text.find("pytorchjobs.kubeflow.org\"} 1") != std::string::npos;
      },
      60s, 500ms));

  auto client = cluster_client();
  wm::bench::PodGroupWatch watch(*client, kPodGroups.at(o.profile).path, kPodGroups.at(o.profile).api_version, ns);
  REQUIRE(eventually([&] { return watch.live(); }, 30s));
  std::this_thread::sleep_for(2s);  // the server settles after registration and its first watches
  const std::string apiserver_before = api_server_metrics(), webhook_before = webhook_metrics();

  // The storm, with the webhook sampled every 250 ms.
  std::atomic<size_t> created{0};
  std::atomic<bool> storm_over{false};
  std::vector<Sample> samples{{Clock::now(), 0, 0, wm::bench::process_usage(pid)}};
  std::thread sampler([&] {
    while (!storm_over) {
      std::this_thread::sleep_for(250ms);
      samples.push_back({Clock::now(), created.load(), watch.owners_seen(), wm::bench::process_usage(pid)});
    }
  });
  const auto storm_start = Clock::now();
  const auto creates = send_all(*client, workloads, o.rate, "POST", created);
  const auto sent_all = Clock::now();
  size_t refused = 0;
  for (size_t i = 0; i < creates.size(); ++i)
    if (creates[i].status != 201) {
      if (++refused <= 3) UNSCOPED_INFO(workloads[i].kind << " " << workloads[i].name << ": " << creates[i].error);
    }
  CHECK(refused == 0);
  const bool all_grouped =
      eventually([&] { return watch.owners_seen() == workloads.size(); }, 60s + std::chrono::seconds(o.workloads / 10));
  std::this_thread::sleep_for(2s);
  storm_over = true;
  sampler.join();
  samples.push_back({Clock::now(), created.load(), watch.owners_seen(), wm::bench::process_usage(pid)});
  CHECK(all_grouped);

  // Every workload has exactly the PodGroups inspect --profile gives it; none without an owner.
  size_t expected_groups = 0, wrong = 0;
  std::vector<double> to_pod_group, round_trip;
  Clock::time_point last_group = storm_start;
  for (size_t i = 0; i < workloads.size(); ++i) {
    auto parsed = parse_json(workloads[i].json);
    std::vector<long long> expected = profile_gangs(parsed, o.profile);
    std::sort(expected.begin(), expected.end());
    expected_groups += expected.size();
    const std::vector<long long> made = watch.min_members(workloads[i].name);
    if (made != expected && ++wrong <= 3)
      UNSCOPED_INFO(workloads[i].kind << " " << workloads[i].name << ": " << made.size() << " PodGroups, expected "
                                      << expected.size());
    Clock::time_point seen;
    if (watch.first_seen(workloads[i].name, seen)) {
      to_pod_group.push_back(ms(seen - creates[i].sent));
      last_group = std::max(last_group, seen);
    }
    round_trip.push_back(ms(creates[i].answered - creates[i].sent));
  }
  CHECK(wrong == 0);
  CHECK(watch.pod_groups() == expected_groups);
  CHECK(watch.unowned() == 0);

  // The scheduler runs every pod: the gangs are whole and fit.
  const bool all_running = eventually([&] { return running_pods(ns) == std::make_pair(pods, pods); },
                                      std::chrono::seconds(o.pods_timeout), 2s);
  const double pods_seconds = std::chrono::duration<double>(Clock::now() - storm_start).count();
  const double pods_running = running_pods(ns).second;
  // The storm includes the Jobs and pods the workloads make.
  const std::string apiserver_after = api_server_metrics(), webhook_after = webhook_metrics();
  CHECK(all_running);
  // `workload-map get -A` over them all, as a user runs it: every workload a row, Running, its pods all its own.
  const auto get_start = Clock::now();
  CommandResult got = run_command({WM_CLI, "get", "-A", "-o", "json", "--kubeconfig", Cluster::get().kubeconfig(),
                                   "--policy", write_temp(ns + "-policy.yaml", policy)});
  const double get_ms = ms(Clock::now() - get_start);
  size_t rows = 0, running_rows = 0;
  simdjson::dom::parser get_parser;
  simdjson::dom::array items;
  INFO(got.err);
  if (got.status == 0 && get_parser.parse(got.out)["items"].get_array().get(items) == simdjson::SUCCESS)
    for (simdjson::dom::element item : items)
      if (string_at(item, "/namespace") == ns) ++rows, running_rows += string_at(item, "/phase") == "Running";
  CHECK(rows == workloads.size());
  CHECK(running_rows == workloads.size());

  // Delete every workload; the garbage collector removes their PodGroups.
  std::atomic<size_t> deleted{0};
  const auto delete_start = Clock::now();
  const auto deletes = send_all(*client, workloads, o.rate * 5, "DELETE", deleted);
  // The garbage collector deletes the Jobs, pods and PodGroups at the controller manager's client rate (20 a second
  // by default): as long as the pods took to run.
  const bool all_collected =
      eventually([&] { return watch.pod_groups() == 0; }, std::chrono::seconds(o.pods_timeout), 2s);
  const double collected_seconds = std::chrono::duration<double>(Clock::now() - delete_start).count();
  CHECK(all_collected);
  // At rest: the delete events handled, and the webhook's periodic trim (every 10 s) run since.
  std::this_thread::sleep_for(11s);
  const wm::bench::ProcessUsage after_delete = wm::bench::process_usage(pid);
  const std::string webhook_deleted = webhook_metrics();
  // The namespace goes with the Jobs and pods the garbage collector is still deleting: the next run starts clean.
  Cluster::get().kubectl({"delete", "namespace", ns, "--wait=false"});
  const bool namespace_gone = eventually(
      [&] {
        return Cluster::get().kubectl({"get", "namespace", ns}).status != 0;
      },
      std::chrono::seconds(o.pods_timeout), 5s);
  CHECK(namespace_gone);

  // The figures.
  std::ostringstream out;
  out << "\nscale: " << workloads.size() << " workloads (";
  for (const auto& [kind, n] : kinds) out << n << " " << kind << (n > 1 ? "s " : " ");
  out << "; " << pods << " pods) at " << o.rate << "/s under " << o.profile << "\n";
  const double storm_seconds = std::chrono::duration<double>(sent_all - storm_start).count();
  out << format("  creates sent in %.1f s (%.1f/s); round trip p50 %.1f ms, p99 %.1f ms\n", storm_seconds,
                static_cast<double>(workloads.size()) / storm_seconds, percentile(round_trip, 0.5),
                percentile(round_trip, 0.99));
  out << "  admission, as the API server measures this webhook (workloads, the Jobs and pods they make):\n"
      << "    mutate   " << admission_line(apiserver_before, apiserver_after, "mutate.workload-map.io", "admit")
      << "\n    validate "
      << admission_line(apiserver_before, apiserver_after, "validate.workload-map.io", "validating") << "\n";
  const std::string own = "workload_map_request_duration_seconds";
  for (const std::string endpoint : {"mutate", "validate"}) {
    const std::vector<std::string> labels = {"endpoint=\"" + endpoint + "\""};
    const auto h = wm::bench::read_histogram(webhook_after, own, labels)
                       .minus(wm::bench::read_histogram(webhook_before, own, labels));
    out << "    " << endpoint << ", the webhook's own time: "
        << format("p50 %.3f ms, p99 %.3f ms\n", 1000 * h.quantile(0.5), 1000 * h.quantile(0.99));
  }
  out << format("  create -> first PodGroup: p50 %.0f ms, p99 %.0f ms, max %.0f ms", percentile(to_pod_group, 0.5),
                percentile(to_pod_group, 0.99), percentile(to_pod_group, 1.0));
  const double group_seconds = std::chrono::duration<double>(last_group - storm_start).count();
  out << format("; %.0f PodGroups in %.1f s (%.1f/s)\n", static_cast<double>(expected_groups), group_seconds,
                static_cast<double>(expected_groups) / group_seconds);
  const Sample& base = samples.front();
  out << format("  webhook at 0 workloads: RSS %.1f MiB, CPU %.2f s\n", base.usage.rss_mib, base.usage.cpu_seconds);
  for (int quarter : {1, 2, 4}) {
    const size_t mark = workloads.size() * quarter / 4;
    auto at = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.with_pod_groups >= mark; });
    if (at == samples.end()) continue;
    const double rss = at->usage.rss_mib - base.usage.rss_mib, cpu = at->usage.cpu_seconds - base.usage.cpu_seconds;
    out << format("  webhook at %5.0f workloads: RSS %.1f MiB (+%.1f; %.2f MiB per 1,000)", static_cast<double>(mark),
                  at->usage.rss_mib, rss, 1000 * rss / static_cast<double>(mark))
        << format(", CPU +%.2f s (%.2f s per 1,000)\n", cpu, 1000 * cpu / static_cast<double>(mark));
  }
  out << format("  pods: %.0f of %.0f running, %.0f s after the first create\n", pods_running, pods_total,
                pods_seconds);
  out << format("  workload-map get -A: %.0f ms, %.0f rows of the workloads, %.0f Running\n", get_ms,
                static_cast<double>(rows), static_cast<double>(running_rows));
  size_t delete_failures = 0;
  for (const auto& d : deletes) delete_failures += d.status / 100 != 2;
  CHECK(delete_failures == 0);
  out << format("  deleted: every PodGroup gone %.1f s after the first delete; webhook RSS %.1f MiB (%+.1f from 0)\n",
                collected_seconds, after_delete.rss_mib, after_delete.rss_mib - base.usage.rss_mib);
  // RSS counts free memory the allocator keeps too; what the program itself still holds is the heap in use.
  out << format("  webhook heap in use (free in the heap): %.1f MiB (%.1f) at 0, %.1f (%.1f) with every pod running, ",
                heap_mib(webhook_before, "allocated"), heap_mib(webhook_before, "free"),
                heap_mib(webhook_after, "allocated"), heap_mib(webhook_after, "free"))
      << format("%.1f (%.1f) after the delete\n", heap_mib(webhook_deleted, "allocated"),
                heap_mib(webhook_deleted, "free"));
  std::cout << out.str() << std::flush;
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  using Catch::clara::Opt;
  session.cli(session.cli() | Opt(options.workloads, "count")["--workloads"]("workloads to create (60)") |
              Opt(options.rate, "per second")["--rate"]("creates per second (20)") |
              Opt(options.profile, "name")["--profile"]("gang profile: volcano or coscheduling (volcano)") |
              Opt(options.pods_timeout, "seconds")["--pods-timeout"]("time for the scheduler to run every pod (300)"));
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}
