// Keeps a handler in step with a collection on the API server, as client-go's reflector does: a paged list, then a
// watch from the list's resourceVersion with bookmarks, a new watch when the server ends one, a new list when the
// resourceVersion is too old (410 Gone), and back-off on every failure. The handler sees whole objects as JSON.
#pragma once

#include <simdjson.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "kube/api.h"

namespace wm::kube {

enum class EventType { Added, Modified, Deleted };

// One line of a watch stream, decoded.
struct WatchEvent {
  enum class Type { Added, Modified, Deleted, Bookmark, Expired /* 410 Gone: list again */, Error } type;
  std::string resource_version;  // the object's, when it has one
  std::string object_json;       // Added, Modified, Deleted: the object
  std::string message;           // Error: the API server's
};
// What a handler keeps of each object (client-go's SharedIndexInformer.SetTransform), as JSON.
using KeepObject = std::function<std::string(simdjson::dom::element object)>;

// An error for a line that is not a watch event. The event's object is kept as `keep` says (whole without it).
Result<WatchEvent> decode_watch_event(std::string_view line, simdjson::dom::parser& parser,
                                      const KeepObject& keep = {});

struct Collection {
  std::string path;               // /apis/<group>/<version>/<resource> or /api/v1/<resource>: every namespace
  std::string api_version, kind;  // filled into list items, which the API server sends without them
  std::string label_selector;     // "" for all
  // What the handler keeps of each object, applied as each list page and watch event is read, so that a list of
  // 50,000 pods is never held whole; its JSON is handed over as it is (the handler knows the kind). Whole without it.
  KeepObject keep;
};

struct ReflectorHandlers {
  std::function<void(std::vector<std::string> objects)> replaced;  // after each (re)list: every object now there
  std::function<void(EventType, const std::string& object)> changed;
  std::function<void(const std::string& problem)> failed;  // for logs and metrics; retried by the reflector
  std::function<void()> live;  // listed, or a watch is open again: what the handler holds is current
};

class Reflector {
 public:
  Reflector(Api& api, Collection collection, ReflectorHandlers handlers)
      : api_(api), collection_(std::move(collection)), handlers_(std::move(handlers)) {}
  // Lists and watches until `stop`.
  void run(const std::atomic<bool>& stop);

  // Splits watch data into events (one JSON object per line); exposed for tests.
  struct Splitter {
    std::string pending;
    template <class F>
    void feed(std::string_view data, F&& on_line) {
      pending.append(data);
      size_t start = 0;
      for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
        if (nl > start) on_line(std::string_view(pending).substr(start, nl - start));
      pending.erase(0, start);
    }
  };

 private:
  enum class WatchEnd { Expired, Ended, Failed };
  bool list(std::string& resource_version, const std::atomic<bool>& stop);
  WatchEnd watch(std::string& resource_version, const std::atomic<bool>& stop);
  std::string with_type(std::string object_json) const;

  Api& api_;
  Collection collection_;
  ReflectorHandlers handlers_;
};

}  // namespace wm::kube
