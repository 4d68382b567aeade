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
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/bench/admission_mix.h"

extern char** environ;

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

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

std::string http_request(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Shared {
  std::vector<std::string> requests;  // serialized HTTP requests, cycled through
  std::atomic<long> issued{0};
  long total = 0;
  std::atomic<long> errors{0}, non_200{0};
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(net::io_context& ioc, ssl::context& ctx, Shared& shared, int port, std::vector<double>& latencies)
      : stream_(ioc, ctx), shared_(shared), port_(port), latencies_(latencies) {}

  void start() {
    beast::get_lowest_layer(stream_).async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)),
        [self = shared_from_this()](beast::error_code ec) {
          if (ec) return self->fail();
          self->stream_.async_handshake(ssl::stream_base::client, [self](beast::error_code ec2) {
            if (ec2) return self->fail();
            self->next();
          });
        });
  }

 private:
  void fail() { shared_.errors++; }

  void next() {
    long n = shared_.issued.fetch_add(1);
    if (n >= shared_.total) return;
    const std::string& req = shared_.requests[static_cast<size_t>(n) % shared_.requests.size()];
    started_ = Clock::now();
    net::async_write(stream_, net::buffer(req), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->fail();
      self->parser_.emplace();
      self->parser_->body_limit(16 << 20);
      http::async_read(self->stream_, self->buffer_, *self->parser_, [self](beast::error_code ec2, size_t) {
        if (ec2) return self->fail();
        self->latencies_.push_back(std::chrono::duration<double, std::micro>(Clock::now() - self->started_).count());
        if (self->parser_->get().result_int() != 200) self->shared_.non_200++;
        self->next();
      });
    });
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  Shared& shared_;
  int port_;
  std::vector<double>& latencies_;
  Clock::time_point started_;
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

double percentile(const std::vector<double>& sorted, double p) {
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
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
  Shared shared;
  shared.total = o.requests;
  for (const auto& entry : wm::bench::admission_mix(src, corpus))
    shared.requests.push_back(http_request("/mutate", entry.review));

  pid_t pid = o.pid;
  bool own_server = o.port == 0;
  if (own_server) pid = start_server(o, o.port, o.ca);

  ssl::context ctx(ssl::context::tls_client);
  if (!o.ca.empty()) {
    ctx.load_verify_file(o.ca);
    ctx.set_verify_mode(ssl::verify_peer);
  }
  std::vector<net::io_context> iocs(static_cast<size_t>(o.client_threads));
  std::vector<std::vector<double>> latencies(static_cast<size_t>(o.connections));
  for (int i = 0; i < o.connections; ++i)
    std::make_shared<Connection>(iocs[static_cast<size_t>(i % o.client_threads)], ctx, shared, o.port,
                                 latencies[static_cast<size_t>(i)])
        ->start();
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (auto& ioc : iocs) threads.emplace_back([&ioc] { ioc.run(); });
  for (auto& t : threads) t.join();
  double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  long rss = pid ? peak_rss_kib(pid) : -1;
  std::printf(
      "workload-map load: %ld requests over %d kept-alive TLS connections (%d client thread%s), mix of %zu "
      "AdmissionReviews to /mutate\n",
      static_cast<long>(all.size()), o.connections, o.client_threads, o.client_threads > 1 ? "s" : "",
      shared.requests.size());
  if (all.empty()) {
    std::printf("no request completed (%ld errors)\n", shared.errors.load());
    return 1;
  }
  std::printf("  throughput  %.0f requests/s\n", static_cast<double>(all.size()) / seconds);
  std::printf("  latency     p50 %.0f us   p90 %.0f us   p99 %.0f us   max %.0f us\n", percentile(all, 0.5),
              percentile(all, 0.9), percentile(all, 0.99), all.back());
  std::printf("  errors      %ld transport, %ld non-200\n", shared.errors.load(), shared.non_200.load());
  if (rss > 0) std::printf("  server peak RSS %.1f MiB\n", static_cast<double>(rss) / 1024.0);
  if (own_server) {
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
  }
  return shared.errors || shared.non_200 ? 1 : 0;
}
