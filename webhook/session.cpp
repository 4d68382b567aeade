#include "webhook/session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <vector>

#include "base/json/parser_capacity.h"
#include "mapper/expr/review_deadline.h"
#include "webhook/admission.h"

namespace wm::webhook {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// GET /healthz, /readyz or /metrics, on either port.
PlainAnswer probe_or_metrics(const ServerShared& shared, std::string_view path) {
  if (path == "/healthz") return {200, "ok\n"};
  if (path == "/readyz") {
    const bool ready = shared.state.ready() && !shared.terminating;
    return {ready ? 200u : 503u, ready ? "ok\n" : "not ready\n"};
  }
  if (path == "/metrics") return {200, shared.metrics.render(), "text/plain; version=0.0.4; charset=utf-8"};
  return {404, "no such endpoint: " + std::string(path) + "\n"};
}

namespace {

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

}  // namespace

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(beast::tcp_stream&& stream, std::shared_ptr<ssl::context> ctx, beast::flat_buffer&& buffer,
          ServerShared& shared)
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
  ServerShared& shared_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string wire_;  // the response being written
  std::list<std::weak_ptr<Session>>::iterator registry_entry_;
  bool waiting_ = false, closed_ = false, registered_ = false, keep_alive_ = false;
  size_t served_ = 0;
};

namespace {

// Looks at the first bytes: TLS goes on to a Session; anything else (plain HTTP on the TLS port)
// gets a clear 400 and is closed.
class Detector : public std::enable_shared_from_this<Detector> {
 public:
  Detector(tcp::socket&& socket, ServerShared& shared) : stream_(std::move(socket)), shared_(shared) {}

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
  ServerShared& shared_;
  std::string wire_;
};

}  // namespace

void serve_connection(tcp::socket&& socket, ServerShared& shared) {
  std::make_shared<Detector>(std::move(socket), shared)->start();
}

void drain_connections(ServerShared& shared) {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(shared.sessions_mutex);
    for (auto& w : shared.sessions)
      if (auto s = w.lock()) live.push_back(std::move(s));
  }
  for (auto& s : live) s->drain();
}

}  // namespace wm::webhook
