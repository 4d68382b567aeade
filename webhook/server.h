// The HTTPS server: Boost.Beast over OpenSSL, asynchronous, one io thread per core, HTTP/1.1
// keep-alive. Routes: POST /mutate, POST /validate, GET /healthz, GET /readyz, GET /metrics.
// With a metrics port, GET /metrics, /healthz and /readyz are also served there in plain HTTP.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "webhook/tls.h"

namespace wm::webhook {

struct ServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 8443;
  std::string metrics_address;                     // empty: no plain-HTTP metrics port
  uint16_t metrics_port = 0;                       // 0 picks a free one
  unsigned threads = 0;                            // 0: one per core
  size_t max_body_bytes = 3 << 20;                 // the API server sends at most 3 MiB objects
  std::chrono::milliseconds read_timeout{10'000};  // TLS handshake and the first request
  std::chrono::milliseconds idle_timeout{60'000};  // waiting for the next request on a kept-alive connection
  std::chrono::milliseconds write_timeout{10'000};
  // How long the expressions of one review may take in all (mapper/expr/review_deadline.h), well under the API
  // server's webhook timeout (5 s as shipped): past it the object is not understood and the failure policy answers.
  std::chrono::milliseconds review_deadline{250};
  size_t max_connections = 4096;
  std::chrono::milliseconds drain_timeout{20'000};  // on SIGTERM, how long in-flight requests may take
  // On SIGTERM, how long to go on serving before the drain: not ready, and each answer closing its connection, so
  // that callers move to the other replicas while the endpoints drop this one (as kube-apiserver's
  // --shutdown-delay-duration). A second signal drains at once.
  std::chrono::milliseconds shutdown_delay{0};
  std::chrono::milliseconds reload_interval{1'000};  // how often files are checked for changes
  // How often the memory freed since is handed back to the system (malloc_trim): requests of every size, and the
  // cluster side's bursts, leave free pages in glibc's per-thread arenas, which it keeps otherwise.
  std::chrono::milliseconds memory_trim_interval{10'000};
};

class Server {
 public:
  Server(ServerOptions options, policy::StateStore& state, TlsContexts& tls, Metrics& metrics, const Logger& log);
  ~Server();
  // Listens; calls `on_listening(port, metrics_port)` once bound (metrics_port 0 when there is none), then serves
  // until SIGTERM/SIGINT, waits out the shutdown delay and drains. Returns 0 after a clean drain, 1 if it could not
  // listen.
  int run(const std::function<void(uint16_t port, uint16_t metrics_port)>& on_listening = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wm::webhook
