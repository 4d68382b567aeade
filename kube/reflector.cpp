#include "kube/reflector.h"

#include <simdjson.h>

#include <random>
#include <thread>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "kube/backoff.h"
#include "kube/list.h"

namespace wm::kube {

bool sleep_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  const auto until = std::chrono::steady_clock::now() + duration;
  while (!stop.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(100)));
  }
  return false;
}

namespace {

std::string query(const Collection& c) {
  return c.label_selector.empty() ? "" : "labelSelector=" + url_encode(c.label_selector);
}

}  // namespace

Result<WatchEvent> decode_watch_event(std::string_view line, simdjson::dom::parser& parser, const KeepObject& keep) {
  simdjson::dom::element event, object;
  if (parser.parse(line.data(), line.size()).get(event) != simdjson::SUCCESS || !event.is_object())
    return Error{"a watch event that is not a JSON object"};
  if (event["object"].get(object) != simdjson::SUCCESS || !object.is_object())
    return Error{"a watch event without an object"};
  const std::string_view type = json::string_at(event, "/type");
  WatchEvent out{WatchEvent::Type::Error, {}, {}, {}};
  if (type == "ERROR") {
    int64_t code = 0;
    if (object["code"].get_int64().get(code) != simdjson::SUCCESS) code = 0;
    out.type = code == 410 ? WatchEvent::Type::Expired : WatchEvent::Type::Error;
    out.message = std::string(json::string_at(object, "/message"));
    return out;
  }
  if (type == "ADDED") {
    out.type = WatchEvent::Type::Added;
  } else if (type == "MODIFIED") {
    out.type = WatchEvent::Type::Modified;
  } else if (type == "DELETED") {
    out.type = WatchEvent::Type::Deleted;
  } else if (type == "BOOKMARK") {
    out.type = WatchEvent::Type::Bookmark;
  } else {
    return Error{"a watch event of unknown type \"" + std::string(type.substr(0, 40)) + "\""};
  }
  out.resource_version = std::string(json::string_at(object, "/metadata/resourceVersion"));
  if (out.type != WatchEvent::Type::Bookmark) out.object_json = keep ? keep(object) : json::element_json(object);
  return out;
}

// List items come without apiVersion and kind (the list has them); events and handlers want whole objects. The API
// server writes them first when it writes them (an owner reference's further in says nothing of the object's own).
std::string Reflector::with_type(std::string object_json) const {
  if (collection_.keep || object_json.starts_with("{\"kind\":") || object_json.starts_with("{\"apiVersion\":"))
    return object_json;
  std::string head = "{\"apiVersion\":" + json::json_string(collection_.api_version) +
                     ",\"kind\":" + json::json_string(collection_.kind) + (object_json.size() > 2 ? "," : "");
  return head + object_json.substr(1);
}

bool Reflector::list(std::string& resource_version, const std::atomic<bool>& stop) {
  std::vector<std::string> objects;
  const ListFailure failed =
      for_each_page(api_, collection_.path, query(collection_), [&](std::unique_ptr<simdjson::dom::document>& page) {
        simdjson::dom::array items;
        if (page->root()["items"].get_array().get(items) == simdjson::SUCCESS)
          for (auto item : items)
            objects.push_back(with_type(collection_.keep ? collection_.keep(item) : json::element_json(item)));
        resource_version = std::string(json::string_at(page->root(), "/metadata/resourceVersion"));
        return !stop.load();
      });
  if (stop.load()) return false;
  if (!failed.error.empty()) {
    handlers_.failed(failed.error);
    return false;
  }
  handlers_.replaced(std::move(objects));
  if (handlers_.live) handlers_.live();
  return true;
}

Reflector::WatchEnd Reflector::watch(std::string& resource_version, const std::atomic<bool>& stop) {
  static thread_local std::mt19937 random(std::random_device{}());
  // As client-go: the server ends each watch after 5 to 10 minutes, so that load spreads over the API servers.
  const int timeout_seconds = 300 + static_cast<int>(random() % 300);
  const std::string selector = query(collection_);
  const std::string target = collection_.path + "?" + (selector.empty() ? "" : selector + "&") +
                             "watch=1&allowWatchBookmarks=true&timeoutSeconds=" + std::to_string(timeout_seconds) +
                             "&resourceVersion=" + url_encode(resource_version);
  Splitter splitter;
  simdjson::dom::parser parser;
  WatchEnd end = WatchEnd::Ended;
  std::string problem;
  auto on_line = [&](std::string_view line) {
    auto event = decode_watch_event(line, parser, collection_.keep);
    if (!event) {
      problem = event.error();
      return false;
    }
    if (!event->resource_version.empty()) resource_version = event->resource_version;
    switch (event->type) {
      case WatchEvent::Type::Bookmark:
        return true;
      case WatchEvent::Type::Expired:
        end = WatchEnd::Expired;
        return false;
      case WatchEvent::Type::Error:
        problem = "watch error: " + event->message;
        return false;
      default:
        break;
    }
    const EventType t = event->type == WatchEvent::Type::Added     ? EventType::Added
                        : event->type == WatchEvent::Type::Deleted ? EventType::Deleted
                                                                   : EventType::Modified;
    handlers_.changed(t, with_type(std::move(event->object_json)));
    return true;
  };
  Response r = api_.stream(
      target,
      [&](std::string_view data) {
        bool go_on = true;
        splitter.feed(data, [&](std::string_view line) { go_on = go_on && on_line(line); });
        return go_on;
      },
      std::chrono::seconds(timeout_seconds + 30), &stop, handlers_.live);
  if (end == WatchEnd::Expired) return end;
  if (r.status == 410) return WatchEnd::Expired;
  if (!problem.empty() || !r.error.empty() || !r.ok()) {
    if (!stop.load())
      handlers_.failed("watch " + collection_.path + ": " + (!problem.empty() ? problem : r.describe()));
    return WatchEnd::Failed;
  }
  return WatchEnd::Ended;
}

void Reflector::run(const std::atomic<bool>& stop) {
  Backoff backoff;
  std::string resource_version;
  bool listed = false;
  while (!stop.load()) {
    if (!listed) {
      listed = list(resource_version, stop);
      if (!listed) {
        if (!sleep_unless_stopped(backoff.next(), stop)) return;
        continue;
      }
      backoff.reset();
    }
    switch (watch(resource_version, stop)) {
      case WatchEnd::Ended:  // the server's timeout: watch again from where it stopped
        backoff.reset();
        break;
      case WatchEnd::Expired:  // the resourceVersion is too old to watch from: list again
        listed = false;
        break;
      case WatchEnd::Failed:
        if (!sleep_unless_stopped(backoff.next(), stop)) return;
        break;
    }
  }
}

}  // namespace wm::kube
