// An API server in memory, for the controllers' unit tests: answers each request from the rules it was given (the
// newest rule whose method and target prefix match; 404 when none does) and keeps every call. A watch delivers its
// rule's body once, then stays open until it is stopped. Safe to share between threads, as kube::Client is.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "kube/api.h"

namespace wm::test {

class FakeApi : public kube::Api {
 public:
  struct Call {
    std::string method, target, body, content_type;
  };
  // Requests with `method` ("GET", "PATCH", ..., or "WATCH" for a stream) whose target starts with `target_prefix`.
  void answer(std::string method, std::string target_prefix, int status, std::string body = "{}");
  std::vector<Call> calls() const;
  // The calls with `method` whose target starts with `target_prefix`.
  std::vector<Call> calls(const std::string& method, const std::string& target_prefix = "") const;

 protected:
  kube::Response send(std::string_view method, const std::string& target, const std::string& body,
                      std::string_view content_type, std::chrono::milliseconds timeout) override;
  kube::Response open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                             std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                             const std::function<void()>& on_open) override;

 private:
  struct Rule {
    std::string method, prefix;
    kube::Response response;
  };
  kube::Response respond(std::string_view method, const std::string& target, const std::string& body,
                         std::string_view content_type);
  mutable std::mutex mutex_;
  std::vector<Rule> rules_;
  std::vector<Call> calls_;
};

// A discovery document (GET /apis/GROUP/VERSION) that serves one namespaced kind.
std::string discovery_document(const std::string& kind, const std::string& plural);

}  // namespace wm::test
