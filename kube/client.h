// Talks HTTPS to the API server (Boost.Beast over OpenSSL). Every call has a deadline, and a long read (a watch)
// can be stopped from another thread; nothing here blocks forever. One connection per call: calls are rare
// (watches are long-lived, writes follow changes), and it keeps the client safe to share between threads.
#pragma once

#include <atomic>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kube/config.h"

namespace wm::kube {

struct Response {
  int status = 0;     // HTTP status; 0 when no response came (the error says why)
  std::string body;   // the response body (for a stream: what followed an error status)
  std::string error;  // transport failure: connect, TLS, timeout, stopped
  bool ok() const { return status >= 200 && status < 300; }
  std::string describe() const;  // "HTTP 404: <message>" or the transport error, for logs
};

inline constexpr std::string_view kJson = "application/json";
inline constexpr std::string_view kApplyPatch = "application/apply-patch+yaml";
inline constexpr std::string_view kMergePatch = "application/merge-patch+json";

class Client {
 public:
  // Fails (with `error`) when the certificates in the configuration cannot be used.
  static std::unique_ptr<Client> make(const Config& config, std::string& error);
  ~Client();

  // One request; `target` is the path and query.
  Response request(std::string_view method, const std::string& target, const std::string& body = {},
                   std::string_view content_type = kJson, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // A streamed GET (a watch): `on_open` is called once the server answers 200, `on_data` gets the body as it
  // arrives and returns false to end the stream. Ends when the server ends it, when nothing arrives for
  // `idle_timeout`, or when `*stop` turns true.
  Response stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                  std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                  const std::function<void()>& on_open = {});

  const Config& config() const { return config_; }

 private:
  Client(Config config, std::shared_ptr<boost::asio::ssl::context> tls);
  struct Call;
  Config config_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  TokenSource token_;
};

// Percent-encodes a query value (label selectors have '=' and ',').
std::string url_encode(std::string_view value);

}  // namespace wm::kube
