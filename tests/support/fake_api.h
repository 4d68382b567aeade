// An API server in memory, for the controllers' unit tests: answers each request from the newest rule that matches it
// (its method and target prefix) or the newest held collection the target is in (404 when none is), and keeps every
// call. A watch delivers its rule's body once, then stays open until it is stopped. Safe to share between threads, as
// kube::Client is.
#pragma once

#include <map>
#include <mutex>
#include <optional>
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

  // An object as the fake stores it: its body as last applied, the resourceVersion of that write, and the field
  // manager that wrote it ("" for one the test put there).
  struct Object {
    std::string body;
    int resource_version = 0;
    std::string field_manager;
    bool operator==(const Object&) const = default;
  };
  // Holds the objects of `collection` (a namespaced collection path, "/apis/G/V/namespaces/NS/PLURAL"), `objects` by
  // name to begin with, and answers for them as an API server would: a GET of the collection lists them (only those
  // whose labels match a labelSelector of key=value terms), a GET of one reads it, a server-side apply PATCH stores
  // its body (201 when new; a fieldManager is required, and force=true to take over another manager's object), a
  // DELETE removes it (404 when there is none). A rule given after this comes first: a test breaks the server so.
  void hold(const std::string& collection, const std::map<std::string, std::string>& objects = {});
  // What `collection` holds now, by name.
  std::map<std::string, Object> objects(const std::string& collection) const;

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
    bool held = false;  // answered from held_[prefix]
  };
  kube::Response respond(std::string_view method, const std::string& target, const std::string& body,
                         std::string_view content_type);
  std::optional<kube::Response> from_held(std::string_view method, const std::string& collection,
                                          const std::string& target, const std::string& body,
                                          std::string_view content_type);
  mutable std::mutex mutex_;
  std::vector<Rule> rules_;
  std::vector<Call> calls_;
  std::map<std::string, std::map<std::string, Object>> held_;  // by collection, by name
  int resource_version_ = 0;
};

// A discovery document (GET /apis/GROUP/VERSION) that serves one namespaced kind.
std::string discovery_document(const std::string& kind, const std::string& plural);

}  // namespace wm::test
