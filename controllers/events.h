// Events, as `kubectl describe` shows them, for what the cluster side does off the admission path: a workload's
// PodGroups, a Karta's acceptance, a webhook configuration's new rules. Like client-go's recorder
// (tools/record/events_cache.go): the same event on the same object again becomes one Event whose count grows, and
// each object has a token bucket (25 at once, then one per 5 minutes), so a failing reconcile cannot flood etcd.
#pragma once

#include <simdjson.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "kube/api.h"
#include "telemetry/log.h"

namespace wm::controllers {

struct ObjectReference {
  std::string api_version, kind, namespace_name, name, uid;
};
ObjectReference reference_to(simdjson::dom::element object);

// Decides, without I/O, what one more event means: a new Event, a count on an existing one, or nothing.
class EventCorrelator {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kBurst = 25;
  static constexpr std::chrono::seconds kRefill{300};
  static constexpr size_t kMaxEntries = 4096;  // client-go's LRU size

  enum class Action { Create, Count, Drop };
  struct Decision {
    Action action = Action::Drop;
    long long count = 0;
    std::string name;  // the Event's name (made on Create)
  };
  // `object` identifies the involved object; `event` the object, type, reason and message; `new_name` is the
  // name a new Event takes.
  Decision observe(const std::string& object, const std::string& event, const std::string& new_name,
                   Clock::time_point now);
  // The Event `event` is gone (expired): the next one creates it again.
  void forget(const std::string& event);
  // Every entry whose object key starts with `object_prefix`: the object is deleted, and no event of it can come
  // again (a new object of that name has a new uid).
  void forget_object(const std::string& object_prefix);

 private:
  struct Bucket {
    double tokens = kBurst;
    Clock::time_point last;
  };
  struct Seen {
    std::string name;
    long long count = 0;
  };
  template <class Value>
  struct Lru {
    std::list<std::string> order;  // most recent first
    std::map<std::string, std::pair<Value, std::list<std::string>::iterator>> entries;
    Value* find(const std::string& key);
    Value& insert(const std::string& key, Value value);
    void erase_prefix(const std::string& prefix);
  };
  Lru<Bucket> buckets_;
  Lru<Seen> seen_;
};

// Writes Events from a thread of its own, as client-go's broadcaster does: a reconcile that records one never waits
// on the API server for it. At most kMaxPending wait; beyond that the oldest are dropped (and logged), since an
// Event is worth less than the work that produced it.
class EventRecorder {
 public:
  static constexpr size_t kMaxPending = 1000;
  EventRecorder(kube::Api& api, std::string instance, const Logger& log);
  ~EventRecorder();  // what is still pending is dropped
  void normal(const ObjectReference& object, std::string_view reason, std::string_view message) {
    record(object, "Normal", reason, message);
  }
  void warning(const ObjectReference& object, std::string_view reason, std::string_view message) {
    record(object, "Warning", reason, message);
  }
  // The workload kind/namespace/name is deleted: what the correlator keeps for it goes, in order with its Events.
  void forget(std::string kind, std::string namespace_name, std::string name);

 private:
  struct Pending {
    ObjectReference object;
    std::string type, reason, message;  // no type: forget the object
  };
  void record(const ObjectReference& object, std::string_view type, std::string_view reason, std::string_view message);
  void write(const Pending& event);
  void run();
  kube::Api& api_;
  std::string instance_;
  const Logger& log_;
  std::mutex mutex_;  // the queue and the stop flag
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  size_t dropped_ = 0;
  bool stop_ = false;
  EventCorrelator correlator_;  // only the writer thread uses it
  std::thread writer_;
};

}  // namespace wm::controllers
