// The topology domains of a cluster's Nodes (the nodes sharing one value of a label key: a rack, an NVLink domain, a
// block) and the room of the largest of each: learnt by the cluster side from a watch of Nodes, read at admission. A
// gang that must land inside one domain of a level never starts when it asks for more than the largest one holds, and
// waits for ever on a level no node carries.
#pragma once

#include <simdjson.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mapper/view/quantity.h"

namespace wm::view {

// What of one Node counts: its values of the label keys asked about, and what it can hold (status.allocatable). Only
// this is kept of each node, so that a cluster of thousands costs little memory.
struct NodeRoom {
  std::vector<std::pair<std::string, std::string>> labels;  // the keys asked about that the node carries
  ResourceList allocatable;
};
// Nothing for a node that takes no new pods (spec.unschedulable: cordoned) or that is not a Node object.
std::optional<NodeRoom> node_room(simdjson::dom::element node, const std::vector<std::string>& keys);

// The largest domain of one label key for one resource.
struct LargestDomain {
  std::string value;  // the label's value
  Quantity room;      // the sum of its nodes' allocatable
  long long nodes = 0;
};

class NodeDomains {
 public:
  // `nodes` by name; `keys`: the label keys asked about (the policy's topology levels).
  NodeDomains(const std::map<std::string, NodeRoom, std::less<>>& nodes, const std::vector<std::string>& keys);
  // Whether the key was asked about: only then does a missing domain mean the cluster has none.
  bool knows(std::string_view key) const { return asked_.count(key) > 0; }
  // Whether some schedulable node carries the key.
  bool carries(std::string_view key) const { return largest_.count(key) > 0; }
  // The domain of `key` with the most `resource` (ties: the first value in order); null when no node of the key has
  // any.
  const LargestDomain* largest(std::string_view key, std::string_view resource) const;

 private:
  std::set<std::string, std::less<>> asked_;
  std::map<std::string, std::map<std::string, LargestDomain, std::less<>>, std::less<>> largest_;  // key, resource
};

// Each resource of `demand` (a gang's minimum) that the largest domain of `key` holds less of, as "40 nvidia.com/gpu
// inside one K, and the largest (K=V, 4 nodes) has 32". A resource no node of the key has is not judged here (a DRA
// device, or a resource of no node at all). Empty when the gang fits, or the key is not known.
std::vector<std::string> domain_shortfalls(const NodeDomains& domains, std::string_view key,
                                           const ResourceList& demand);

}  // namespace wm::view
