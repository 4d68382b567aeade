// Talks HTTPS to the API server (Boost.Beast over OpenSSL). Every call has a deadline, and a long read (a watch)
// can be stopped from another thread; nothing here blocks forever. Safe to share between threads: each call holds
// a connection of its own. Requests reuse idle keep-alive connections, as Go's http.Transport does, because at
// scale a TLS handshake per write costs more CPU than the write (tests/bench/scale); a watch has its own.
#pragma once

#include <atomic>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api.h"
#include "kube/config.h"

namespace wm::kube {

class Client : public Api {
 public:
  // Fails (with `error`) when the certificates in the configuration cannot be used.
  static Result<std::unique_ptr<Client>> make(const Config& config);
  ~Client();

  const Config& config() const { return config_; }
  // Connections opened so far (a figure for tests and benchmarks: reuse keeps it low).
  size_t connections_opened() const { return connections_opened_.load(); }

 protected:
  Response send(std::string_view method, const std::string& target, const std::string& body,
                std::string_view content_type, std::chrono::milliseconds timeout) override;
  Response open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                       std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                       const std::function<void()>& on_open) override;

 private:
  Client(Config config, std::shared_ptr<boost::asio::ssl::context> tls);
  struct Call;
  // An idle connection the server has not closed, or a new one, connected.
  Result<std::unique_ptr<Call>> connection(std::chrono::milliseconds timeout);
  void keep_idle(std::unique_ptr<Call> call);
  Response exchange(Call& call, std::string_view method, const std::string& target, const std::string& body,
                    std::string_view content_type, std::chrono::milliseconds timeout, bool& keep_alive);

  Config config_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  TokenSource token_;
  std::mutex idle_mutex_;
  std::vector<std::unique_ptr<Call>> idle_;  // most recently used last
  std::atomic<size_t> connections_opened_{0};
};

}  // namespace wm::kube
