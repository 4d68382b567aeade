// Lists collections for `get` and `describe`, several at once: each read is queued (a kind, with the versions to try),
// then all run with up to 4 in flight (the API server encodes one large list while another is parsed here), and their
// items are handed to each read's callbacks in the order queued, on the calling thread. A list that fails is a note
// in the snapshot ("may not list ..." for a 403); a kind the API server does not serve calls `unserved`.
#pragma once

#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kube/api.h"
#include "kube/discovery.h"
#include "kube/list.h"
#include "live/snapshot.h"

namespace wm::cli {

class ClusterReader {
 public:
  ClusterReader(kube::Api& api, live::Snapshot& snapshot, std::string namespace_name)
      : api_(api), discovery_(api), snapshot_(snapshot), namespace_(std::move(namespace_name)) {}

  struct Read {
    std::string group;
    std::vector<std::string> versions;  // tried in turn: the first served is listed
    std::string kind;
    std::function<void(const kube::Resource&, simdjson::dom::element)> each;
    std::function<void(const kube::Resource&)> done;  // after its items (optional)
    std::function<void()> unserved;                   // none of the versions is served (optional)
  };
  void queue(Read read) { reads_.push_back(std::move(read)); }
  // Runs the reads queued, then their callbacks; the queue is empty after.
  void run();

  kube::Discovery& discovery() { return discovery_; }

 private:
  struct Outcome {
    std::optional<kube::Resource> resource;
    kube::Listed listed;
  };
  Outcome fetch(const Read& read);

  kube::Api& api_;
  kube::Discovery discovery_;
  live::Snapshot& snapshot_;
  std::string namespace_;
  std::vector<Read> reads_;
};

}  // namespace wm::cli
