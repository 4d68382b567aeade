#include "tests/bench/tls_load.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace wm::bench {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Shared {
  const std::function<std::string(long)>& request;
  long end;
  std::atomic<long> next;
  std::mutex mutex;  // guards result's statuses and transport_errors
  LoadResult& result;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(net::io_context& ioc, ssl::context& ctx, Shared& shared, uint16_t port, std::vector<double>& latencies)
      : stream_(ioc, ctx), shared_(shared), port_(port), latencies_(latencies) {}

  void start() {
    beast::get_lowest_layer(stream_).async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), [self = shared_from_this()](beast::error_code ec) {
          if (ec) return self->fail();
          self->stream_.async_handshake(ssl::stream_base::client, [self](beast::error_code ec2) {
            if (ec2) return self->fail();
            self->send_next();
          });
        });
  }

 private:
  // The connection's last act, after the last request or a failure: its counts join the result.
  void finish(bool failed) {
    std::lock_guard lock(shared_.mutex);
    shared_.result.transport_errors += failed;
    for (const auto& [status, n] : statuses_) shared_.result.statuses[status] += n;
  }
  void fail() { finish(true); }

  void send_next() {
    const long n = shared_.next.fetch_add(1);
    if (n >= shared_.end) return finish(false);
    request_ = shared_.request(n);
    started_ = Clock::now();
    net::async_write(stream_, net::buffer(request_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->fail();
      self->parser_.emplace();
      self->parser_->body_limit(16 << 20);
      http::async_read(self->stream_, self->buffer_, *self->parser_, [self](beast::error_code ec2, size_t) {
        if (ec2) return self->fail();
        self->latencies_.push_back(std::chrono::duration<double, std::micro>(Clock::now() - self->started_).count());
        self->statuses_[self->parser_->get().result_int()]++;
        self->send_next();
      });
    });
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  Shared& shared_;
  uint16_t port_;
  std::vector<double>& latencies_;
  std::string request_;
  std::map<int, long> statuses_;
  Clock::time_point started_;
};

}  // namespace

std::string http_post(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

LoadResult run_load(const LoadOptions& options, long first, long count,
                    const std::function<std::string(long)>& request) {
  LoadResult result;
  Shared shared{request, first + count, {first}, {}, result};
  ssl::context ctx(ssl::context::tls_client);
  if (!options.ca.empty()) {
    ctx.load_verify_file(options.ca);
    ctx.set_verify_mode(ssl::verify_peer);
  }
  std::vector<net::io_context> iocs(static_cast<size_t>(options.client_threads));
  std::vector<std::vector<double>> latencies(static_cast<size_t>(options.connections));
  for (int i = 0; i < options.connections; ++i)
    std::make_shared<Connection>(iocs[static_cast<size_t>(i % options.client_threads)], ctx, shared, options.port,
                                 latencies[static_cast<size_t>(i)])
        ->start();
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (auto& ioc : iocs) threads.emplace_back([&ioc] { ioc.run(); });
  for (auto& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& l : latencies) result.latencies_us.insert(result.latencies_us.end(), l.begin(), l.end());
  return result;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
}

}  // namespace wm::bench
