#include "webhook/server.h"

#include <malloc.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "base/json/parser_capacity.h"
#include "mapper/expr/review_deadline.h"
#include "webhook/admission.h"
#include "webhook/plain_http.h"

namespace wm::webhook {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

class Session;

// What every session shares.
struct Shared {
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
PlainAnswer probe_or_metrics(const Shared& shared, std::string_view path) {
  if (path == "/healthz") return {200, "ok\n"};
  if (path == "/readyz") {
    const bool ready = shared.state.ready() && !shared.terminating;
    return {ready ? 200u : 503u, ready ? "ok\n" : "not ready\n"};
  }
  if (path == "/metrics") return {200, shared.metrics.render(), "text/plain; version=0.0.4; charset=utf-8"};
  return {404, "no such endpoint: " + std::string(path) + "\n"};
}

// The whole HTTP response, as it goes on the wire: one buffer, one TLS write.
std::string plain(http::status status, unsigned version, std::string_view body, bool keep_alive,
                  std::string_view content_type = "text/plain; charset=utf-8") {
  const auto reason = http::obsolete_reason(status);
  const std::string length = std::to_string(body.size());
  std::string out;
  out.reserve(128 + content_type.size() + body.size());
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(static_cast<unsigned>(status));
  out += ' ';
  out.append(reason.data(), reason.size());
  out += "\r\nServer: workload-map\r\nContent-Type: ";
  out += content_type;
  out += "\r\nContent-Length: ";
  out += length;
  if (version == 10 && keep_alive) out += "\r\nConnection: keep-alive";
  if (version != 10 && !keep_alive) out += "\r\nConnection: close";
  out += "\r\n\r\n";
  out += body;
  return out;
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(beast::tcp_stream&& stream, std::shared_ptr<ssl::context> ctx, beast::flat_buffer&& buffer, Shared& shared)
      : ctx_(std::move(ctx)), stream_(std::move(stream), *ctx_), buffer_(std::move(buffer)), shared_(shared) {}

  ~Session() {
    if (registered_) {
      std::lock_guard lock(shared_.sessions_mutex);
      shared_.sessions.erase(registry_entry_);
    }
    shared_.connections--;
    shared_.metrics.connection_closed();
  }

  void start() {
    {
      std::lock_guard lock(shared_.sessions_mutex);
      shared_.sessions.push_back(weak_from_this());
      registry_entry_ = std::prev(shared_.sessions.end());
      registered_ = true;
    }
    beast::get_lowest_layer(stream_).expires_after(shared_.options.read_timeout);
    stream_.async_handshake(ssl::stream_base::server, buffer_.data(),
                            beast::bind_front_handler(&Session::on_handshake, shared_from_this()));
  }

  // On the session's strand: a connection waiting for its next request is closed now; one with a
  // request in flight closes after answering it.
  void drain() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->waiting_ && !(self->parser_ && self->parser_->got_some()) && self->buffer_.size() == 0) self->close();
    });
  }

 private:
  void on_handshake(beast::error_code ec, size_t used) {
    if (ec) {
      shared_.metrics.tls_failure();
      if (shared_.log.enabled(LogLevel::Debug))
        shared_.log.log(LogLevel::Debug, "TLS handshake failed", {{"error", ec.message()}});
      return close();
    }
    buffer_.consume(used);
    read();
  }

  void read() {
    if (shared_.draining && buffer_.size() == 0) return close();  // no next request has begun
    parser_.emplace();
    parser_->body_limit(shared_.options.max_body_bytes);
    parser_->header_limit(64 * 1024);
    waiting_ = true;
    beast::get_lowest_layer(stream_).expires_after(served_ ? shared_.options.idle_timeout
                                                           : shared_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
    waiting_ = false;
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == ssl::error::stream_truncated)
      return close();
    if (ec == http::error::body_limit)
      return reply(http::status::payload_too_large, 11,
                   "request body over " + std::to_string(shared_.options.max_body_bytes) + " bytes\n", false,
                   {"http", "", "too-large"}, Clock::now());
    if (ec) {
      if (ec.category() == beast::error_code(http::error::bad_target).category())
        return reply(http::status::bad_request, 11, "malformed HTTP request: " + ec.message() + "\n", false,
                     {"http", "", "bad-request"}, Clock::now());
      return close();
    }
    handle(parser_->release());
  }

  void handle(http::request<http::string_body> req) {
    auto started = Clock::now();
    const bool keep_alive = req.keep_alive() && !shared_.terminating;
    const unsigned version = req.version();
    const auto target = req.target();
    std::string_view path(target.data(), target.size());
    if (auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);

    if (path == "/mutate" || path == "/validate") {
      if (req.method() != http::verb::post)
        return reply(http::status::method_not_allowed, version, "use POST\n", keep_alive, {"http", "", "bad-method"},
                     started);
      thread_local simdjson::dom::parser parser;
      policy::AdmissionState state = shared_.state.current();
      Endpoint endpoint = path == "/mutate" ? Endpoint::Mutate : Endpoint::Validate;
      shared_.metrics.review_started();
      AdmissionResult result = [&] {
        const expr::ReviewDeadline deadline(shared_.options.review_deadline);
        return review(endpoint, req.body(), state, parser);
      }();
      json::shed_capacity(parser);
      shared_.metrics.review_finished();
      const LogLevel level = result.outcome == Outcome::Denied   ? LogLevel::Info
                             : result.outcome == Outcome::Failed ? LogLevel::Error
                                                                 : LogLevel::Warn;
      if (!result.message.empty() && shared_.log.enabled(level))
        shared_.log.log(
            level, "admission " + std::string(outcome_name(result.outcome)),
            {{"endpoint", path.substr(1)}, {"kind", result.kind}, {"uid", result.uid}, {"reason", result.message}});
      const Labels labels{path.substr(1), result.kind, outcome_name(result.outcome), result.operation};
      if (result.http_status != 200)
        return reply(static_cast<http::status>(result.http_status), version, result.body + "\n", keep_alive, labels,
                     started);
      return reply(http::status::ok, version, result.body, keep_alive, labels, started, "application/json");
    }
    if (req.method() != http::verb::get)
      return reply(http::status::method_not_allowed, version, "use GET\n", keep_alive, {"http", "", "bad-method"},
                   started);
    if (path == "/healthz" || path == "/readyz" || path == "/metrics") {
      const PlainAnswer answer = probe_or_metrics(shared_, path);
      return reply(static_cast<http::status>(answer.status), version, answer.body, keep_alive,
                   {path.substr(1), "", answer.status == 200 ? "ok" : "not-ready"}, started, answer.content_type);
    }
    return reply(http::status::not_found, version, "no such endpoint: " + std::string(path) + "\n", keep_alive,
                 {"http", "", "not-found"}, started);
  }

  // What a request is counted under in the metrics (the kind is empty off the admission endpoints).
  struct Labels {
    std::string_view endpoint, kind, outcome, operation = {};
  };

  void reply(http::status status, unsigned version, std::string_view body, bool keep_alive, const Labels& labels,
             Clock::time_point started, std::string_view content_type = "text/plain; charset=utf-8") {
    wire_ = plain(status, version, body, keep_alive, content_type);
    keep_alive_ = keep_alive;
    double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    shared_.metrics.request(labels.endpoint, labels.operation, labels.kind, labels.outcome, seconds);
    ++served_;
    beast::get_lowest_layer(stream_).expires_after(shared_.options.write_timeout);
    net::async_write(stream_, net::buffer(wire_), beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, size_t) {
    if (ec || !keep_alive_ || shared_.draining) return close();
    read();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
  }

  std::shared_ptr<ssl::context> ctx_;  // kept alive for this connection across certificate reloads
  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  Shared& shared_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string wire_;  // the response being written
  std::list<std::weak_ptr<Session>>::iterator registry_entry_;
  bool waiting_ = false, closed_ = false, registered_ = false, keep_alive_ = false;
  size_t served_ = 0;
};

// Looks at the first bytes: TLS goes on to a Session; anything else (plain HTTP on the TLS port)
// gets a clear 400 and is closed.
class Detector : public std::enable_shared_from_this<Detector> {
 public:
  Detector(tcp::socket&& socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}

  void start() {
    stream_.expires_after(shared_.options.read_timeout);
    beast::async_detect_ssl(stream_, buffer_, beast::bind_front_handler(&Detector::on_detect, shared_from_this()));
  }

 private:
  void on_detect(beast::error_code ec, bool is_tls) {
    if (ec) return release();
    if (is_tls) {
      std::make_shared<Session>(std::move(stream_), shared_.tls.current(), std::move(buffer_), shared_)->start();
      return;
    }
    shared_.metrics.tls_failure();
    wire_ = plain(http::status::bad_request, 11, "this port speaks HTTPS only\n", false);
    net::async_write(stream_, net::buffer(wire_), [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
      self->release();
    });
  }
  void release() {
    shared_.connections--;
    shared_.metrics.connection_closed();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Shared& shared_;
  std::string wire_;
};

}  // namespace

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
        std::make_shared<Detector>(std::move(socket), shared)->start();
      }
      accept();
    });
  }

  void schedule_reload() {
    reload_timer.expires_after(shared.options.reload_interval);
    reload_timer.async_wait([this](beast::error_code ec) {
      if (ec || shared.draining) return;
      reload();
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

  // Each outcome is logged before the metrics count it, so whoever sees the metric change finds the log line.
  void reload() {
    if (auto tls_result = shared.tls.reload_if_changed()) {
      if (tls_result->ok()) {
        shared.log.log(LogLevel::Info, "certificate reloaded");
        shared.metrics.set_certificate_expiry(shared.tls.certificate_expiry());
      } else {
        shared.log.log(LogLevel::Error, "certificate reload failed; the previous certificate stays in use",
                       {{"error", tls_result->error()}});
      }
      shared.metrics.reload("certificate", tls_result->ok());
    }
    for (const auto& r : shared.state.reload_if_changed()) {
      if (r.ok()) {
        shared.log.log(LogLevel::Info, r.what + " reloaded");
        shared.metrics.set_definitions(shared.state.current().catalog->size());
      } else {
        std::string all;
        for (const auto& e : r.problems) all += (all.empty() ? "" : "; ") + e.str();
        shared.log.log(LogLevel::Error, r.what + " reload failed; the last good " + r.what + " stays live",
                       {{"error", all}});
      }
      shared.metrics.reload(r.what, r.ok());
    }
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
    std::vector<std::shared_ptr<Session>> live;
    {
      std::lock_guard lock(shared.sessions_mutex);
      for (auto& w : shared.sessions)
        if (auto s = w.lock()) live.push_back(std::move(s));
    }
    for (auto& s : live) s->drain();
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

  Shared shared;
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
    s.shared.state.current().catalog->warm_up();  // this thread's jq programs, before its first request
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
