// What `get` and `describe` read of the cluster, read once: the objects of every kind the catalog knows, the pods, the
// objects the profiles' schedulers record a gang's state on (policy::GangStatusSource), the queues they know, and what
// could not be read. Filled by the command line from the API server (cli/cluster_snapshot.h), or by a test by hand:
// nothing here talks to the API server.
#pragma once

#include <simdjson.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mapper/view/references.h"

namespace wm::live {

// One object; list items come without apiVersion and kind, so they are kept beside it.
struct LiveObject {
  simdjson::dom::element object;
  std::string api_version, kind;
};

struct Snapshot {
  std::vector<std::unique_ptr<simdjson::dom::document>> documents;  // what the elements below point into
  std::vector<LiveObject> objects;                                  // of the catalog's kinds, pods excepted
  std::vector<simdjson::dom::element> pods;
  std::vector<LiveObject> gang_objects;  // of the profiles' gangStatus kinds
  std::vector<simdjson::dom::element> events;
  // The objects workloads refer to, the DRA claims and DeviceClasses, and the profiles' queues, held as the webhook's
  // cluster side holds them (controllers/reference_watch.h): what the views count with, and what a queue is checked in.
  std::shared_ptr<view::ReferenceStore> references = std::make_shared<view::ReferenceStore>();
  // The profiles' gang status kinds the API server does not serve ("group/Kind"): their gangs cannot be recorded.
  std::set<std::string> unserved_gang_kinds;
  // The most GPUs one node can give, and all nodes together; unknown when nodes were not read.
  std::optional<long long> largest_node_gpus, cluster_gpus;
  // What could not be read: "may not list jobsets.jobset.x-k8s.io in team-a: HTTP 403 ..." (the rest is shown).
  std::vector<std::string> notes;

  simdjson::dom::element adopt(std::unique_ptr<simdjson::dom::document> document) {
    documents.push_back(std::move(document));
    return documents.back()->root();
  }
};

}  // namespace wm::live
