// The API server as the cluster side sees it: requests, and streamed reads (watches). kube::Client is the real one,
// over HTTPS; unit tests give a fake that answers from memory (tests/support/fake_api.h), so that what a controller
// does with each answer is tested without a control plane.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace wm::kube {

struct Response {
  int status = 0;     // HTTP status; 0 when no response came (the error says why)
  std::string body;   // the response body (for a stream: what followed an error status)
  std::string error;  // transport failure: connect, TLS, timeout, stopped
  bool ok() const { return status >= 200 && status < 300; }
  std::string describe() const;  // "HTTP 404: <message>" or the transport error, for logs
  // What went wrong, with what to do about it: no answer, 429 and 5xx are Unavailable, 404 NotFound, 409 Conflict,
  // any other status Invalid. `what` says what was asked ("list /apis/..."), before describe().
  Error failure(std::string_view what) const;
  // failure(), retryable whatever the status: for a write whose refusal may pass later (once a CRD, a webhook, a
  // quota or the RBAC changes), which a controller looks at again with back-off.
  Error failure_to_retry(std::string_view what) const;
};

inline constexpr std::string_view kJson = "application/json";
inline constexpr std::string_view kApplyPatch = "application/apply-patch+yaml";
inline constexpr std::string_view kMergePatch = "application/merge-patch+json";
inline constexpr std::string_view kJsonPatch = "application/json-patch+json";

class Api {
 public:
  virtual ~Api() = default;
  // One request; `target` is the path and query.
  Response request(std::string_view method, const std::string& target, const std::string& body = {},
                   std::string_view content_type = kJson,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return send(method, target, body, content_type, timeout);
  }
  // A streamed GET (a watch): `on_open` is called once the server answers 200, `on_data` gets the body as it
  // arrives and returns false to end the stream. Ends when the server ends it, when nothing arrives for
  // `idle_timeout`, or when `*stop` turns true.
  Response stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                  std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                  const std::function<void()>& on_open = {}) {
    return open_stream(target, on_data, idle_timeout, stop, on_open);
  }

 protected:
  virtual Response send(std::string_view method, const std::string& target, const std::string& body,
                        std::string_view content_type, std::chrono::milliseconds timeout) = 0;
  virtual Response open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                               std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                               const std::function<void()>& on_open) = 0;
};

// Percent-encodes a query value (label selectors have '=' and ',').
std::string url_encode(std::string_view value);

}  // namespace wm::kube
