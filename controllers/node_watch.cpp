#include "controllers/node_watch.h"

#include <algorithm>

#include "base/json/json_read.h"
#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"
#include "kube/reflector.h"

namespace wm::controllers {

namespace {

void add_levels(std::vector<std::string>& keys, const catalog::TopologyConstraint& t) {
  for (const std::string* level : {&t.required_level, &t.preferred_level})
    if (!level->empty()) keys.push_back(*level);
}

}  // namespace

std::vector<std::string> topology_label_keys(const policy::AdmissionState& state) {
  std::vector<std::string> keys;
  if (state.policy) {
    for (const auto& t : state.policy->topologies()) keys.insert(keys.end(), t.levels.begin(), t.levels.end());
    for (const auto& rule : state.policy->rules())
      if (rule.topology) add_levels(keys, *rule.topology);
  }
  if (state.catalog)
    for (const auto& d : state.catalog->definitions()) {
      if (!d->pod_group) continue;
      if (d->pod_group->topology) add_levels(keys, *d->pod_group->topology);
      for (const auto& sub : d->pod_group->sub_groups)
        if (sub.topology) add_levels(keys, *sub.topology);
    }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

void NodeWatch::run(const std::atomic<bool>& stop) {
  static const catalog::GroupVersionKind kNode{"", "v1", "Node"};
  while (!stop.load()) {
    std::vector<std::string> keys = topology_label_keys(cluster_.state.current());
    std::string joined;  // the watch is keyed by its label keys: new keys, a new list of the Nodes
    for (const auto& k : keys) joined += k + ",";
    if (keys != keys_) {   // only this thread writes keys_
      watchers_.sync({});  // the old watch stopped before its nodes go: it writes nothing after
      std::lock_guard lock(mutex_);
      keys_ = std::move(keys);
      nodes_.clear();
      listed_ = false;
      changed_ = true;
    }
    watchers_.sync(joined.empty() ? std::map<std::string, catalog::GroupVersionKind>{}
                                  : std::map<std::string, catalog::GroupVersionKind>{{joined, kNode}});
    publish();
    kube::sleep_unless_stopped(std::chrono::seconds(1), stop);
  }
  watchers_.stop_all();
}

void NodeWatch::publish() {
  std::shared_ptr<const view::NodeDomains> domains;
  {
    std::lock_guard lock(mutex_);
    if (!changed_) return;
    changed_ = false;
    if (listed_ && !keys_.empty()) domains = std::make_shared<const view::NodeDomains>(nodes_, keys_);
  }
  cluster_.state.references().set_node_domains(std::move(domains));
}

void NodeWatch::watch_nodes(const std::atomic<bool>& stop) {
  std::vector<std::string> keys;
  {
    std::lock_guard lock(mutex_);
    keys = keys_;
  }
  auto room_of = [&keys](const std::string& object, std::string& name) -> std::optional<view::NodeRoom> {
    simdjson::dom::parser parser;
    simdjson::dom::element node;
    if (parser.parse(object).get(node) != simdjson::SUCCESS) return std::nullopt;
    name = json::string_at(node, "/metadata/name");
    return view::node_room(node, keys);
  };
  kube::Reflector reflector(cluster_.api, {"/api/v1/nodes", "v1", "Node", ""},
                            {[&](std::vector<std::string> objects) {
                               std::map<std::string, view::NodeRoom, std::less<>> nodes;
                               for (const auto& o : objects) {
                                 std::string name;
                                 if (auto room = room_of(o, name)) nodes.emplace(std::move(name), std::move(*room));
                               }
                               std::lock_guard lock(mutex_);
                               nodes_ = std::move(nodes);
                               listed_ = changed_ = true;
                             },
                             [&](kube::EventType type, const std::string& object) {
                               std::string name;
                               auto room = room_of(object, name);
                               std::lock_guard lock(mutex_);
                               if (type == kube::EventType::Deleted || !room)
                                 nodes_.erase(name);  // a cordoned node holds no new gang
                               else
                                 nodes_.insert_or_assign(std::move(name), std::move(*room));
                               changed_ = true;
                             },
                             [&](const std::string& problem) {
                               report_watch_failed(cluster_.metrics, cluster_.log, "nodes", problem,
                                                   "topology domains (gangs larger than a domain are not warned of)");
                             },
                             [&] { report_watch_live(cluster_.metrics, "nodes"); }});
  cluster_.log.log(LogLevel::Info, "watching nodes for the topology domains",
                   {{"labels", std::to_string(keys.size())}});
  reflector.run(stop);
}

}  // namespace wm::controllers
