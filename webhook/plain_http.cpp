#include "webhook/plain_http.h"

#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>

namespace wm::webhook {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class PlainSession : public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(tcp::socket&& socket, const PlainHandler& handler, std::chrono::milliseconds timeout)
      : stream_(std::move(socket)), handler_(handler), timeout_(timeout) {}

  void start() {
    parser_.body_limit(4096);  // GETs have no body worth reading
    stream_.expires_after(timeout_);
    http::async_read(stream_, buffer_, parser_, beast::bind_front_handler(&PlainSession::on_read, shared_from_this()));
  }

 private:
  void on_read(beast::error_code ec, size_t) {
    if (ec) return close();
    const auto& request = parser_.get();
    response_.version(request.version());
    response_.keep_alive(false);
    response_.set(http::field::server, "workload-map");
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      response_.result(http::status::method_not_allowed);
      response_.set(http::field::content_type, "text/plain; charset=utf-8");
      response_.body() = "use GET\n";
    } else {
      std::string_view path(request.target().data(), request.target().size());
      if (auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
      PlainAnswer answer = handler_(path);
      response_.result(static_cast<http::status>(answer.status));
      response_.set(http::field::content_type, answer.content_type);
      response_.body() = std::move(answer.body);
    }
    response_.prepare_payload();
    http::async_write(stream_, response_, [self = shared_from_this()](beast::error_code, size_t) { self->close(); });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> response_;
  const PlainHandler& handler_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

void serve_plain_http(tcp::acceptor& acceptor, const PlainHandler& handler, std::chrono::milliseconds timeout) {
  acceptor.async_accept(net::make_strand(acceptor.get_executor()),
                        [&acceptor, &handler, timeout](beast::error_code ec, tcp::socket socket) {
                          if (!acceptor.is_open()) return;
                          if (!ec) std::make_shared<PlainSession>(std::move(socket), handler, timeout)->start();
                          serve_plain_http(acceptor, handler, timeout);
                        });
}

}  // namespace wm::webhook
