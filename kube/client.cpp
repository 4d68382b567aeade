#include "kube/client.h"

#include <openssl/ssl.h>
#include <poll.h>
#include <simdjson.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

namespace wm::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Stream = beast::ssl_stream<beast::tcp_stream>;

namespace {

Result<void> add_pem(asio::ssl::context& ctx, const std::string& pem, bool certificate_chain) {
  boost::system::error_code ec;
  if (certificate_chain)
    ctx.use_certificate_chain(asio::buffer(pem), ec);
  else
    ctx.use_private_key(asio::buffer(pem), asio::ssl::context::pem, ec);
  if (ec) return Error{ec.message()};
  return {};
}

}  // namespace

Result<std::unique_ptr<Client>> Client::make(const Config& config) {
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (config.insecure_skip_verify) {
    tls->set_verify_mode(asio::ssl::verify_none);
  } else {
    tls->set_verify_mode(asio::ssl::verify_peer);
    if (config.ca_pem.empty())
      tls->set_default_verify_paths(ec);
    else
      tls->add_certificate_authority(asio::buffer(config.ca_pem), ec);
    if (ec) return Error{"the cluster CA: " + ec.message()};
    tls->set_verify_callback(asio::ssl::host_name_verification(config.tls_server_name));
  }
  if (!config.client_certificate_pem.empty()) {
    if (auto added = add_pem(*tls, config.client_certificate_pem, true); !added)
      return Error{"the client certificate: " + added.error()};
    if (auto added = add_pem(*tls, config.client_key_pem, false); !added)
      return Error{"the client certificate: " + added.error()};
  }
  return std::unique_ptr<Client>(new Client(config, std::move(tls)));
}

Client::Client(Config config, std::shared_ptr<asio::ssl::context> tls)
    : config_(std::move(config)), tls_(std::move(tls)), token_(config_) {}
Client::~Client() = default;

// One connection and the io_context that drives it: asynchronous operations, each run to completion (or to its
// deadline, or until stopped) before the next, so that calls read as sequential code.
struct Client::Call {
  asio::io_context ioc;
  Stream stream;
  beast::flat_buffer buffer;
  const std::atomic<bool>* stop = nullptr;
  boost::system::error_code ec;
  bool reused = false;
  std::chrono::steady_clock::time_point idle_since;

  Call(asio::ssl::context& tls) : stream(ioc, tls) {}

  // An idle keep-alive connection can take the next request unless the server closed it (or sent something,
  // which an idle HTTP/1.1 connection never should), or it has idled longer than the API server keeps one
  // (kube-apiserver closes them after 90 s, Go's http.Transport its own after 90 s too).
  bool usable(std::chrono::steady_clock::time_point now) {
    if (now - idle_since > std::chrono::seconds(30)) return false;
    pollfd p{beast::get_lowest_layer(stream).socket().native_handle(), POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
  }

  // Runs until the pending operation completes; closes the socket (failing it) when stopped.
  void wait(bool& done) {
    while (!done) {
      ioc.run_for(std::chrono::milliseconds(200));
      if (!done && stop && stop->load()) {
        beast::get_lowest_layer(stream).close();
        ioc.run();
        ec = asio::error::operation_aborted;
      }
    }
    ioc.restart();
  }
  template <class Start>
  bool step(std::chrono::milliseconds timeout, Start start) {
    bool done = false;
    beast::get_lowest_layer(stream).expires_after(timeout);
    start([&](boost::system::error_code e, auto&&...) {
      ec = e;
      done = true;
    });
    wait(done);
    return !ec;
  }

  Result<void> connect(const Config& config, std::chrono::milliseconds timeout) {
    asio::ip::tcp::resolver resolver(ioc);
    asio::ip::tcp::resolver::results_type endpoints;
    bool done = false;
    resolver.async_resolve(config.host, config.port, [&](boost::system::error_code e, auto results) {
      ec = e;
      endpoints = results;
      done = true;
    });
    wait(done);
    if (ec) return Error{"resolve " + config.host + ": " + ec.message(), ErrorCode::Unavailable};
    if (!step(timeout, [&](auto h) { beast::get_lowest_layer(stream).async_connect(endpoints, h); }))
      return Error{"connect " + config.server() + ": " + ec.message(), ErrorCode::Unavailable};
    if (!SSL_set_tlsext_host_name(stream.native_handle(), config.tls_server_name.c_str()))
      return Error{"TLS: cannot set the server name", ErrorCode::Internal};
    if (!step(timeout, [&](auto h) { stream.async_handshake(asio::ssl::stream_base::client, h); }))
      return Error{"TLS handshake with " + config.server() + ": " + ec.message(), ErrorCode::Unavailable};
    return {};
  }
};

namespace {

http::request<http::string_body> make_request(std::string_view method, const std::string& target,
                                              const std::string& body, std::string_view content_type,
                                              const Config& config, const std::string& token) {
  http::request<http::string_body> req{http::string_to_verb(beast::string_view(method.data(), method.size())), target,
                                       11};
  req.set(http::field::host, config.host);
  req.set(http::field::user_agent, "workload-map");
  req.set(http::field::accept, "application/json");
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  if (!body.empty()) {
    req.set(http::field::content_type, beast::string_view(content_type.data(), content_type.size()));
    req.body() = body;
  }
  req.prepare_payload();
  return req;
}

}  // namespace

Result<std::unique_ptr<Client::Call>> Client::connection(std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(idle_mutex_);
    const auto now = std::chrono::steady_clock::now();
    while (!idle_.empty()) {
      std::unique_ptr<Call> call = std::move(idle_.back());
      idle_.pop_back();
      if (call->usable(now)) {
        call->reused = true;
        return call;
      }
    }
  }
  auto call = std::make_unique<Call>(*tls_);
  ++connections_opened_;
  if (auto connected = call->connect(config_, timeout); !connected) return connected.failure();
  return call;
}

void Client::keep_idle(std::unique_ptr<Call> call) {
  constexpr size_t kMaxIdle = 8;  // about the writers that run at once: reconcile workers, events, the Lease
  call->idle_since = std::chrono::steady_clock::now();
  std::lock_guard lock(idle_mutex_);
  if (idle_.size() >= kMaxIdle) idle_.erase(idle_.begin());
  idle_.push_back(std::move(call));
}

Response Client::exchange(Call& call, std::string_view method, const std::string& target, const std::string& body,
                          std::string_view content_type, std::chrono::milliseconds timeout, bool& keep_alive) {
  Response out;
  auto req = make_request(method, target, body, content_type, config_, token_.token());
  if (!call.step(timeout, [&](auto h) { http::async_write(call.stream, req, h); })) {
    out.error = "send " + std::string(method) + " " + target + ": " + call.ec.message();
    return out;
  }
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  if (!call.step(timeout, [&](auto h) { http::async_read(call.stream, call.buffer, parser, h); })) {
    out.error = std::string(method) + " " + target + ": " + call.ec.message();
    return out;
  }
  out.status = static_cast<int>(parser.get().result_int());
  keep_alive = parser.get().keep_alive();
  out.body = std::move(parser.get().body());
  return out;
}

Response Client::send(std::string_view method, const std::string& target, const std::string& body,
                      std::string_view content_type, std::chrono::milliseconds timeout) {
  // A reused connection the server closed just as it was taken fails before any response: an idempotent request
  // is sent again on a new one (as Go's http.Transport retries). A POST is not, since the server may have acted
  // on it; its callers retry as they would after any failure.
  const bool may_resend = method != "POST";
  for (int attempt = 0;; ++attempt) {
    Result<std::unique_ptr<Call>> connected = connection(timeout);
    if (!connected) return Response{0, "", connected.error()};
    std::unique_ptr<Call> call = std::move(*connected);
    bool keep_alive = false;
    Response out = exchange(*call, method, target, body, content_type, timeout, keep_alive);
    if (out.status == 0 && call->reused && may_resend && attempt == 0) continue;
    if (out.status != 0 && keep_alive) keep_idle(std::move(call));
    return out;
  }
}

Response Client::open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                             std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                             const std::function<void()>& on_open) {
  Response out;
  Call call(*tls_);
  ++connections_opened_;
  call.stop = stop;
  const auto connect_timeout = std::min<std::chrono::milliseconds>(idle_timeout, std::chrono::seconds(10));
  if (auto connected = call.connect(config_, connect_timeout); !connected) {
    out.error = connected.error();
    return out;
  }
  auto req = make_request("GET", target, {}, {}, config_, token_.token());
  if (!call.step(connect_timeout, [&](auto h) { http::async_write(call.stream, req, h); })) {
    out.error = "send GET " + target + ": " + call.ec.message();
    return out;
  }
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  if (!call.step(idle_timeout, [&](auto h) { http::async_read_header(call.stream, call.buffer, parser, h); })) {
    out.error = "GET " + target + ": " + call.ec.message();
    return out;
  }
  out.status = static_cast<int>(parser.get().result_int());
  const bool ok = out.ok();
  if (ok && on_open) on_open();
  std::string chunk(64 * 1024, '\0');
  while (!parser.is_done()) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    call.step(idle_timeout, [&](auto h) { http::async_read_some(call.stream, call.buffer, parser, h); });
    if (call.ec == http::error::need_buffer) call.ec = {};
    const size_t n = chunk.size() - parser.get().body().size;
    if (call.ec) {
      out.error = call.ec == beast::error::timeout ? "no data for " + std::to_string(idle_timeout.count()) + " ms"
                  : stop && stop->load()           ? "stopped"
                                                   : call.ec.message();
      break;
    }
    if (!ok) {
      if (out.body.size() < (1u << 20)) out.body.append(chunk.data(), n);
    } else if (n && !on_data(std::string_view(chunk.data(), n))) {
      break;
    }
  }
  return out;
}

}  // namespace wm::kube
