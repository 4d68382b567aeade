// One connection to the webhook: TLS detection, then HTTP/1.1 keep-alive requests answered by admission, the probes
// and the metrics, each bounded by the server's time-outs. What every connection shares is ServerShared.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <list>
#include <memory>
#include <mutex>
#include <string_view>

#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "webhook/plain_http.h"
#include "webhook/server.h"
#include "webhook/tls.h"

namespace wm::webhook {

class Session;

// What every connection shares.
struct ServerShared {
  ServerOptions options;
  policy::StateStore& state;
  TlsContexts& tls;
  Metrics& metrics;
  const Logger& log;
  std::atomic<bool> terminating{false};  // signalled: in the shutdown delay, then draining
  std::atomic<bool> draining{false};
  std::atomic<size_t> connections{0};
  std::mutex sessions_mutex;
  std::list<std::weak_ptr<Session>> sessions;
};

// GET /healthz, /readyz or /metrics, on either port.
PlainAnswer probe_or_metrics(const ServerShared& shared, std::string_view path);

// Serves an accepted connection (already counted in shared.connections) until it closes.
void serve_connection(boost::asio::ip::tcp::socket&& socket, ServerShared& shared);

// Asks every open connection to finish its request in flight and close.
void drain_connections(ServerShared& shared);

}  // namespace wm::webhook
