#include "tests/support/fake_api.h"

#include <thread>

namespace wm::test {

void FakeApi::answer(std::string method, std::string target_prefix, int status, std::string body) {
  std::lock_guard lock(mutex_);
  rules_.push_back({std::move(method), std::move(target_prefix), kube::Response{status, std::move(body), ""}});
}

std::vector<FakeApi::Call> FakeApi::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::vector<FakeApi::Call> FakeApi::calls(const std::string& method, const std::string& target_prefix) const {
  std::vector<Call> out;
  for (auto& call : calls())
    if (call.method == method && call.target.compare(0, target_prefix.size(), target_prefix) == 0)
      out.push_back(std::move(call));
  return out;
}

kube::Response FakeApi::respond(std::string_view method, const std::string& target, const std::string& body,
                                std::string_view content_type) {
  std::lock_guard lock(mutex_);
  calls_.push_back({std::string(method), target, body, std::string(content_type)});
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it)
    if (it->method == method && target.compare(0, it->prefix.size(), it->prefix) == 0) return it->response;
  return kube::Response{404, R"({"kind":"Status","message":"not found in the fake"})", ""};
}

kube::Response FakeApi::send(std::string_view method, const std::string& target, const std::string& body,
                             std::string_view content_type, std::chrono::milliseconds) {
  return respond(method, target, body, content_type);
}

kube::Response FakeApi::open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                                    std::chrono::milliseconds, const std::atomic<bool>* stop,
                                    const std::function<void()>& on_open) {
  kube::Response r = respond("WATCH", target, "", "");
  if (!r.ok()) return r;
  if (on_open) on_open();
  if (!r.body.empty() && !on_data(r.body)) return r;
  while (stop && !stop->load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return kube::Response{0, "", "stopped"};
}

std::string discovery_document(const std::string& kind, const std::string& plural) {
  return R"({"kind":"APIResourceList","resources":[{"name":")" + plural + R"(","namespaced":true,"kind":")" + kind +
         R"("},{"name":")" + plural + R"(/status","namespaced":true,"kind":")" + kind + R"("}]})";
}

}  // namespace wm::test
