// Load benchmark: N kept-alive TLS connections send a fixed mix of AdmissionReviews (JobSet,
// PyTorchJob, RayCluster, LeaderWorkerSet, InferenceService, Deployment) to `workload-map serve`
// for a fixed count, then print requests/s, latency percentiles and the server's peak RSS.
//
//   load_bench [--connections 64] [--requests 200000] [--client-threads 1] [--server-threads 0]
//              [--port P --ca FILE --pid PID]   (an already running server; default: start one)
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/bench/admission_mix.h"
#include "tests/bench/tls_load.h"

extern char** environ;

namespace {

struct Options {
  int connections = 64;
  long requests = 200000;
  int client_threads = 1;
  int server_threads = 0;
  int port = 0;
  std::string ca;
  pid_t pid = 0;
};

long peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

pid_t start_server(const Options& o, int& port, std::string& ca) {
  std::string threads = std::to_string(o.server_threads);
  std::vector<std::string> argv = {WM_CLI,        "serve", "--listen",  "127.0.0.1:0",
                                   "--log-level", "error", "--threads", threads};
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int out[2];
  if (pipe(out)) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  pid_t pid;
  if (posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ)) std::exit(1);
  close(out[1]);
  std::string banner;
  char c;
  // The banner ends with the "stop:" line.
  while (read(out[0], &c, 1) == 1) {
    banner.push_back(c);
    if (c == '\n' && banner.find("stop:") != std::string::npos) break;
  }
  close(out[0]);
  std::smatch m;
  if (!std::regex_search(banner, m, std::regex(R"(https://127\.0\.0\.1:(\d+))"))) std::exit(1);
  port = std::stoi(m[1]);
  if (std::regex_search(banner, m, std::regex(R"(certificate: (\S+))"))) ca = m[1];
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--connections")
      o.connections = std::stoi(v);
    else if (a == "--requests")
      o.requests = std::stol(v);
    else if (a == "--client-threads")
      o.client_threads = std::stoi(v);
    else if (a == "--server-threads")
      o.server_threads = std::stoi(v);
    else if (a == "--port")
      o.port = std::stoi(v);
    else if (a == "--ca")
      o.ca = v;
    else if (a == "--pid")
      o.pid = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const std::string src = WM_SOURCE_DIR, corpus = WM_CORPUS_DIR;
  std::vector<std::string> requests;
  for (const auto& entry : wm::bench::admission_mix(src, corpus))
    requests.push_back(wm::bench::http_post("/mutate", entry.review));

  pid_t pid = o.pid;
  bool own_server = o.port == 0;
  if (own_server) pid = start_server(o, o.port, o.ca);

  const wm::bench::LoadOptions load{static_cast<uint16_t>(o.port), o.ca, o.connections, o.client_threads};
  auto result = wm::bench::run_load(load, 0, o.requests,
                                    [&](long n) { return requests[static_cast<size_t>(n) % requests.size()]; });
  auto& all = result.latencies_us;
  std::sort(all.begin(), all.end());
  long non_200 = 0;
  for (const auto& [status, n] : result.statuses) non_200 += status == 200 ? 0 : n;
  long rss = pid ? peak_rss_kib(pid) : -1;
  std::printf(
      "workload-map load: %ld requests over %d kept-alive TLS connections (%d client thread%s), mix of %zu "
      "AdmissionReviews to /mutate\n",
      static_cast<long>(all.size()), o.connections, o.client_threads, o.client_threads > 1 ? "s" : "", requests.size());
  if (all.empty()) {
    std::printf("no request completed (%ld errors)\n", result.transport_errors);
    return 1;
  }
  std::printf("  throughput  %.0f requests/s\n", static_cast<double>(all.size()) / result.seconds);
  std::printf("  latency     p50 %.0f us   p90 %.0f us   p99 %.0f us   max %.0f us\n", wm::bench::percentile(all, 0.5),
              wm::bench::percentile(all, 0.9), wm::bench::percentile(all, 0.99), all.back());
  std::printf("  errors      %ld transport, %ld non-200\n", result.transport_errors, non_200);
  if (rss > 0) std::printf("  server peak RSS %.1f MiB\n", static_cast<double>(rss) / 1024.0);
  if (own_server) {
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
  }
  return result.transport_errors || non_200 ? 1 : 0;
}
