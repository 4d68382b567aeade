#include "controllers/events.h"

#include <algorithm>
#include <cstdio>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "kube/leader_election.h"

namespace wm::controllers {

ObjectReference reference_to(simdjson::dom::element object) {
  return {std::string(json::string_at(object, "/apiVersion")), std::string(json::string_at(object, "/kind")),
          std::string(json::string_at(object, "/metadata/namespace")),
          std::string(json::string_at(object, "/metadata/name")),
          std::string(json::string_at(object, "/metadata/uid"))};
}

template <class Value>
Value* EventCorrelator::Lru<Value>::find(const std::string& key) {
  auto it = entries.find(key);
  if (it == entries.end()) return nullptr;
  order.splice(order.begin(), order, it->second.second);
  return &it->second.first;
}

template <class Value>
Value& EventCorrelator::Lru<Value>::insert(const std::string& key, Value value) {
  if (entries.size() >= kMaxEntries) {
    entries.erase(order.back());
    order.pop_back();
  }
  order.push_front(key);
  return entries.insert_or_assign(key, std::make_pair(std::move(value), order.begin())).first->second.first;
}

template <class Value>
void EventCorrelator::Lru<Value>::erase_prefix(const std::string& prefix) {
  for (auto it = entries.lower_bound(prefix);
       it != entries.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    order.erase(it->second.second);
    it = entries.erase(it);
  }
}

EventCorrelator::Decision EventCorrelator::observe(const std::string& object, const std::string& event,
                                                   const std::string& new_name, Clock::time_point now) {
  Bucket* bucket = buckets_.find(object);
  if (!bucket) bucket = &buckets_.insert(object, Bucket{kBurst, now});
  const double refilled = std::chrono::duration<double>(now - bucket->last) / kRefill;
  bucket->tokens = std::min<double>(kBurst, bucket->tokens + refilled);
  bucket->last = now;
  if (bucket->tokens < 1) return {};
  bucket->tokens -= 1;

  if (Seen* seen = seen_.find(event)) return {Action::Count, ++seen->count, seen->name};
  seen_.insert(event, Seen{new_name, 1});
  return {Action::Create, 1, new_name};
}

void EventCorrelator::forget(const std::string& event) {
  if (auto it = seen_.entries.find(event); it != seen_.entries.end()) {
    seen_.order.erase(it->second.second);
    seen_.entries.erase(it);
  }
}

void EventCorrelator::forget_object(const std::string& object_prefix) {
  buckets_.erase_prefix(object_prefix);
  seen_.erase_prefix(object_prefix);
}

EventRecorder::EventRecorder(kube::Api& api, std::string instance, const Logger& log)
    : api_(api), instance_(std::move(instance)), log_(log), writer_([this] { run(); }) {}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  writer_.join();
}

void EventRecorder::record(const ObjectReference& object, std::string_view type, std::string_view reason,
                           std::string_view message) {
  {
    std::lock_guard lock(mutex_);
    if (pending_.size() >= kMaxPending) {
      pending_.pop_front();
      if (++dropped_ % 100 == 1)
        log_.log(LogLevel::Warn, "too many Events waiting to be written: dropping the oldest",
                 {{"dropped", std::to_string(dropped_)}});
    }
    pending_.push_back({object, std::string(type), std::string(reason), std::string(message)});
  }
  wake_.notify_one();
}

void EventRecorder::forget(std::string kind, std::string namespace_name, std::string name) {
  record({"", std::move(kind), std::move(namespace_name), std::move(name), ""}, "", "", "");
}

void EventRecorder::run() {
  while (true) {
    Pending event;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      event = std::move(pending_.front());
      pending_.pop_front();
    }
    write(event);
  }
}

void EventRecorder::write(const Pending& event) {
  const ObjectReference& object = event.object;
  const std::string_view type = event.type, reason = event.reason, message = event.message;
  // Keyed by the object's name before its uid, so that a deleted object's entries, of any uid, share a prefix.
  const std::string object_prefix = object.kind + "|" + object.namespace_name + "|" + object.name + "|";
  if (type.empty()) {
    correlator_.forget_object(object_prefix);
    return;
  }
  const std::string object_key = object_prefix + object.uid;
  const std::string event_key =
      object_key + "|" + std::string(type) + "|" + std::string(reason) + "|" + std::string(message);
  // Events of cluster-scoped objects go to default, as client-go puts them.
  const std::string ns = object.namespace_name.empty() ? "default" : object.namespace_name;
  const std::string collection = "/api/v1/namespaces/" + kube::url_encode(ns) + "/events";
  const std::string now = kube::micro_time_now().substr(0, 19) + "Z";
  for (int attempt = 0; attempt < 2; ++attempt) {
    // Named as client-go names them: the object's name and the time in nanoseconds, in hex.
    char stamp[24];
    std::snprintf(stamp, sizeof stamp, ".%llx",
                  static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                      std::chrono::system_clock::now().time_since_epoch())
                                                      .count()));
    const auto decision =
        correlator_.observe(object_key, event_key, object.name + stamp, EventCorrelator::Clock::now());
    if (decision.action == EventCorrelator::Action::Drop) return;
    kube::Response r;
    if (decision.action == EventCorrelator::Action::Count) {
      json::JsonWriter count;
      count.begin_object().field("count", decision.count).field("lastTimestamp", now).end_object();
      r = api_.request("PATCH", collection + "/" + kube::url_encode(decision.name), count.str(), kube::kMergePatch);
      if (r.status == 404) {  // the API server expired it (an hour by default): make it again
        correlator_.forget(event_key);
        continue;
      }
    } else {
      json::JsonWriter body;
      body.begin_object().field("apiVersion", "v1").field("kind", "Event");
      body.key("metadata").begin_object().field("name", decision.name).field("namespace", ns).end_object();
      body.key("involvedObject").begin_object().field("apiVersion", object.api_version).field("kind", object.kind);
      body.field("name", object.name);
      if (!object.namespace_name.empty()) body.field("namespace", object.namespace_name);
      if (!object.uid.empty()) body.field("uid", object.uid);
      body.end_object();
      body.field("type", type).field("reason", reason).field("message", message).field("count", 1);
      body.field("firstTimestamp", now).field("lastTimestamp", now);
      body.key("source").begin_object().field("component", "workload-map").end_object();
      body.field("reportingComponent", "workload-map").field("reportingInstance", instance_).end_object();
      r = api_.request("POST", collection, body.str());
    }
    if (!r.ok())
      log_.log(LogLevel::Debug, "cannot write an Event",
               {{"object", object_key}, {"reason", std::string(reason)}, {"problem", r.describe()}});
    return;
  }
}

}  // namespace wm::controllers
