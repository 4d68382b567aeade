#include "tests/support/fake_api.h"

#include <simdjson.h>

#include <cctype>
#include <thread>

namespace wm::test {

namespace {

kube::Response status_answer(int code, const std::string& message) {
  return kube::Response{code,
                        R"({"kind":"Status","code":)" + std::to_string(code) + R"(,"message":")" + message + "\"}", ""};
}

std::string url_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    auto hex = [&](size_t at) { return at < text.size() && std::isxdigit(static_cast<unsigned char>(text[at])); };
    if (text[i] == '%' && hex(i + 1) && hex(i + 2)) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The value of query parameter `name` in `target`, decoded; nullopt when it has none.
std::optional<std::string> query_value(const std::string& target, const std::string& name) {
  const size_t q = target.find('?');
  if (q == std::string::npos) return std::nullopt;
  std::string_view query = std::string_view(target).substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    if (param.substr(0, name.size() + 1) == name + "=") return url_decode(param.substr(name.size() + 1));
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return std::nullopt;
}

// Whether `body`'s labels match `selector`, key=value terms joined by commas; nullopt for a selector of another form.
std::optional<bool> labels_match(const std::string& body, const std::string& selector) {
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(body).get(object) != simdjson::SUCCESS) return false;
  std::string_view terms = selector;
  while (!terms.empty()) {
    const size_t comma = terms.find(',');
    const std::string_view term = terms.substr(0, comma);
    const size_t eq = term.find('=');
    if (eq == std::string_view::npos || term.find('=', eq + 1) != std::string_view::npos ||
        term.find('!') != std::string_view::npos)
      return std::nullopt;
    std::string pointer = "/metadata/labels/";
    for (char c : term.substr(0, eq)) pointer += c == '/' ? "~1" : c == '~' ? "~0" : std::string(1, c);
    std::string_view value;
    if (object.at_pointer(pointer).get_string().get(value) != simdjson::SUCCESS || value != term.substr(eq + 1))
      return false;
    terms = comma == std::string_view::npos ? std::string_view() : terms.substr(comma + 1);
  }
  return true;
}

}  // namespace

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
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->held) {
      if (auto r = from_held(method, it->prefix, target, body, content_type)) return *r;
    } else if (it->method == method && target.compare(0, it->prefix.size(), it->prefix) == 0) {
      return it->response;
    }
  }
  return kube::Response{404, R"({"kind":"Status","message":"not found in the fake"})", ""};
}

void FakeApi::hold(const std::string& collection, const std::map<std::string, std::string>& objects) {
  std::lock_guard lock(mutex_);
  rules_.push_back({"", collection, {}, true});
  for (const auto& [name, body] : objects) held_[collection][name] = Object{body, ++resource_version_, ""};
}

std::map<std::string, FakeApi::Object> FakeApi::objects(const std::string& collection) const {
  std::lock_guard lock(mutex_);
  auto it = held_.find(collection);
  return it == held_.end() ? std::map<std::string, Object>{} : it->second;
}

// The answer for a request about `collection` or one of its objects; nullopt for a target elsewhere.
std::optional<kube::Response> FakeApi::from_held(std::string_view method, const std::string& collection,
                                                 const std::string& target, const std::string& body,
                                                 std::string_view content_type) {
  const std::string path = target.substr(0, target.find('?'));
  if (path.compare(0, collection.size(), collection) != 0) return std::nullopt;
  std::map<std::string, Object>& objects = held_[collection];
  if (path.size() == collection.size()) {
    if (method != "GET") return std::nullopt;
    const std::string selector = query_value(target, "labelSelector").value_or("");
    std::string items;
    for (const auto& [name, object] : objects) {
      const std::optional<bool> selected = labels_match(object.body, selector);
      if (!selected) return status_answer(400, "the fake selects by key=value labels only");
      if (*selected) items += (items.empty() ? "" : ",") + object.body;
    }
    return kube::Response{200,
                          R"({"kind":"List","metadata":{"resourceVersion":")" + std::to_string(resource_version_) +
                              R"("},"items":[)" + items + "]}",
                          ""};
  }
  if (path[collection.size()] != '/') return std::nullopt;
  const std::string name = url_decode(std::string_view(path).substr(collection.size() + 1));
  auto it = objects.find(name);
  if (method == "GET")
    return it == objects.end() ? status_answer(404, name + " not found") : kube::Response{200, it->second.body, ""};
  if (method == "DELETE") {
    if (it == objects.end()) return status_answer(404, name + " not found");
    objects.erase(it);
    return status_answer(200, "deleted");
  }
  if (method != "PATCH" || content_type != kube::kApplyPatch)
    return status_answer(405, "the fake holds objects for GET, DELETE and server-side apply only");
  const std::string manager = query_value(target, "fieldManager").value_or("");
  if (manager.empty()) return status_answer(422, "fieldManager: Required value: is required for apply patch");
  const bool created = it == objects.end();
  if (!created && it->second.field_manager != manager && query_value(target, "force") != "true")
    return status_answer(409, "Apply failed with 1 conflict: " + name + " is managed by another manager");
  objects[name] = Object{body, ++resource_version_, manager};
  return kube::Response{created ? 201 : 200, body, ""};
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
