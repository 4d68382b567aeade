#include "webhook/server.h"

#include <malloc.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <thread>
#include <vector>

#include "webhook/file_reload.h"
#include "webhook/plain_http.h"
#include "webhook/session.h"

namespace wm::webhook {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Server::Impl {
  Impl(ServerOptions o, policy::StateStore& state, TlsContexts& tls, Metrics& metrics, const Logger& log)
      : shared{o, state, tls, metrics, log},
        threads(o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency())),
        ioc(static_cast<int>(threads)),
        acceptor(net::make_strand(ioc)),
        metrics_acceptor(net::make_strand(ioc)),
        signals(control, SIGINT, SIGTERM),
        reload_timer(control),
        trim_timer(control),
        drain_timer(control) {}

  // SIGTERM or SIGINT, on the control strand: the shutdown delay, then the drain; a second signal drains at once.
  void wait_for_signal() {
    signals.async_wait([this](beast::error_code ec, int) {
      if (ec) return;
      if (shared.terminating.exchange(true) || shared.options.shutdown_delay.count() == 0) return drain();
      shared.log.log(LogLevel::Info, "terminating: not ready, serving until the endpoints drop this replica",
                     {{"delayMs", std::to_string(shared.options.shutdown_delay.count())}});
      delay_timer.expires_after(shared.options.shutdown_delay);
      delay_timer.async_wait([this](beast::error_code e) {
        if (!e) drain();
      });
      wait_for_signal();
    });
  }

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (acceptor.is_open()) accept();
        return;
      }
      shared.metrics.connection_opened();
      if (++shared.connections > shared.options.max_connections) {
        shared.metrics.connection_refused();
        shared.connections--;
        shared.metrics.connection_closed();
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        beast::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);  // each response is one write: send it now
        serve_connection(std::move(socket), shared);
      }
      accept();
    });
  }

  void schedule_reload() {
    reload_timer.expires_after(shared.options.reload_interval);
    reload_timer.async_wait([this](beast::error_code ec) {
      if (ec || shared.draining) return;
      reload_changed_files(shared.tls, shared.state, shared.metrics, shared.log);
      schedule_reload();
    });
  }

  // Without it RSS creeps up to a high-water mark per arena: pages freed by large requests, and the gaps that
  // long-lived allocations leave between short-lived ones. A trim of a 20 MiB heap takes about 100 us.
  void schedule_trim() {
    trim_timer.expires_after(shared.options.memory_trim_interval);
    trim_timer.async_wait([this](beast::error_code ec) {
      if (ec || shared.draining) return;
      malloc_trim(0);
      schedule_trim();
    });
  }

  void drain() {
    shared.terminating = true;
    if (shared.draining.exchange(true)) return;
    delay_timer.cancel();
    signals.cancel();  // nothing left to wait for: the io threads return once the connections are gone
    shared.log.log(LogLevel::Info, "draining: finishing requests in flight");
    // Each acceptor is closed on its own strand: never beside the accept handler that re-arms it.
    for (tcp::acceptor* a : {&acceptor, &metrics_acceptor})
      net::dispatch(a->get_executor(), [a] {
        beast::error_code ignored;
        a->close(ignored);
      });
    reload_timer.cancel();
    trim_timer.cancel();
    drain_connections(shared);
    poll_drained();
    drain_timer.expires_after(shared.options.drain_timeout);
    drain_timer.async_wait([this](beast::error_code ec) {
      if (ec) return;
      shared.log.log(LogLevel::Warn, "drain timeout: closing the remaining connections");
      ioc.stop();
    });
  }

  // Once the last connection is gone, nothing is left to run and the io threads return.
  void poll_drained() {
    drain_poll_timer.expires_after(std::chrono::milliseconds(20));
    drain_poll_timer.async_wait([this](beast::error_code ec) {
      if (ec) return;
      if (shared.connections.load() == 0)
        drain_timer.cancel();
      else
        poll_drained();
    });
  }

  ServerShared shared;
  unsigned threads;
  net::io_context ioc;
  // The signal and the reload, trim and drain timers run their handlers here, one at a time: a drain never cancels a
  // timer while another thread re-arms it.
  net::strand<net::io_context::executor_type> control{net::make_strand(ioc)};
  tcp::acceptor acceptor, metrics_acceptor;
  PlainHandler metrics_handler = [this](std::string_view path) { return probe_or_metrics(shared, path); };
  net::signal_set signals;
  net::steady_timer reload_timer, trim_timer, drain_timer, drain_poll_timer{control}, delay_timer{control};
};

Server::Server(ServerOptions options, policy::StateStore& state, TlsContexts& tls, Metrics& metrics, const Logger& log)
    : impl_(std::make_unique<Impl>(options, state, tls, metrics, log)) {}
Server::~Server() = default;

namespace {

// Opens, binds and listens; false (logged) when it cannot.
bool listen_on(tcp::acceptor& acceptor, const std::string& host, uint16_t port, const Logger& log) {
  beast::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) {
    log.log(LogLevel::Error, "bad listen address", {{"address", host}});
    return false;
  }
  tcp::endpoint endpoint{address, port};
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    log.log(LogLevel::Error, "cannot listen",
            {{"address", host}, {"port", std::to_string(port)}, {"error", ec.message()}});
  return !ec;
}

}  // namespace

int Server::run(const std::function<void(uint16_t, uint16_t)>& on_listening) {
  Impl& s = *impl_;
  const ServerOptions& o = s.shared.options;
  if (!listen_on(s.acceptor, o.address, o.port, s.shared.log)) return 1;
  const bool metrics_port = !o.metrics_address.empty();
  if (metrics_port && !listen_on(s.metrics_acceptor, o.metrics_address, o.metrics_port, s.shared.log)) return 1;
  s.shared.metrics.set_definitions(s.shared.state.current().catalog->size());
  s.shared.metrics.set_certificate_expiry(s.shared.tls.certificate_expiry());
  s.wait_for_signal();
  s.accept();
  if (metrics_port) serve_plain_http(s.metrics_acceptor, s.metrics_handler, o.read_timeout);
  s.schedule_reload();
  s.schedule_trim();
  if (on_listening)
    on_listening(s.acceptor.local_endpoint().port(), metrics_port ? s.metrics_acceptor.local_endpoint().port() : 0);

  std::vector<std::thread> pool;
  auto work = [&s] {
    // This thread's jq programs, the catalog's and the policy's, before its first request.
    const policy::AdmissionState warm = s.shared.state.current();
    warm.catalog->warm_up();
    if (warm.policy) warm.policy->warm_up();
    // A handler that throws (reviews are guarded: this is the rest, connections and metrics) costs its connection,
    // which the exception's unwinding closes, never the thread: run() is entered again.
    for (;;) {
      try {
        s.ioc.run();
        return;
      } catch (const std::exception& e) {
        s.shared.log.log(LogLevel::Error, "a handler failed", {{"error", e.what()}});
      } catch (...) {
        s.shared.log.log(LogLevel::Error, "a handler failed", {{"error", "an unknown exception"}});
      }
    }
  };
  for (unsigned i = 1; i < s.threads; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  s.shared.log.log(LogLevel::Info, "stopped");
  return 0;
}

}  // namespace wm::webhook