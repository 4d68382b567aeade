// Plain HTTP (no TLS) on a port of its own, for Prometheus and kubelet probes, which should not need the webhook's
// CA: GET only, one request per connection (so that a drain has no idle keep-alive to wait for).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace wm::webhook {

struct PlainAnswer {
  unsigned status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};
using PlainHandler = std::function<PlainAnswer(std::string_view path)>;

// Accepts on `acceptor` (open and listening) until it is closed; each request gets `handler`'s answer within
// `timeout`. `handler` and `acceptor` outlive the io_context's run.
void serve_plain_http(boost::asio::ip::tcp::acceptor& acceptor, const PlainHandler& handler,
                      std::chrono::milliseconds timeout);

}  // namespace wm::webhook
