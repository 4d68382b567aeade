#include "mapper/view/node_domains.h"

#include "mapper/view/resources.h"

namespace wm::view {

std::optional<NodeRoom> node_room(simdjson::dom::element node, const std::vector<std::string>& keys) {
  std::string_view kind;
  if (node["kind"].get(kind) == simdjson::SUCCESS && kind != "Node") return std::nullopt;
  bool unschedulable = false;
  if (node.at_pointer("/spec/unschedulable").get(unschedulable) == simdjson::SUCCESS && unschedulable)
    return std::nullopt;
  NodeRoom room;
  simdjson::dom::object labels;
  if (node.at_pointer("/metadata/labels").get(labels) == simdjson::SUCCESS)
    for (const auto& key : keys) {
      std::string_view value;
      if (labels[key].get(value) == simdjson::SUCCESS) room.labels.emplace_back(key, std::string(value));
    }
  simdjson::dom::object allocatable;
  if (node.at_pointer("/status/allocatable").get(allocatable) == simdjson::SUCCESS)
    for (auto [name, value] : allocatable)
      if (auto q = quantity_of(value)) room.allocatable.insert_or_assign(name, *q);
  return room;
}

NodeDomains::NodeDomains(const std::map<std::string, NodeRoom, std::less<>>& nodes,
                         const std::vector<std::string>& keys)
    : asked_(keys.begin(), keys.end()) {
  struct Domain {
    ResourceList room;
    long long nodes = 0;
  };
  std::map<std::string, std::map<std::string, Domain>> domains;  // key, value
  for (const auto& [name, node] : nodes)
    for (const auto& [key, value] : node.labels) {
      Domain& d = domains[key][value];
      add_into(d.room, node.allocatable);
      ++d.nodes;
    }
  for (const auto& [key, values] : domains) {
    auto& largest = largest_[key];
    for (const auto& [value, domain] : values)
      for (const auto& [resource, room] : domain.room) {
        auto [it, first] = largest.try_emplace(resource, LargestDomain{value, room, domain.nodes});
        if (!first && it->second.room < room) it->second = LargestDomain{value, room, domain.nodes};
      }
  }
}

const LargestDomain* NodeDomains::largest(std::string_view key, std::string_view resource) const {
  auto by_key = largest_.find(key);
  if (by_key == largest_.end()) return nullptr;
  auto it = by_key->second.find(resource);
  return it == by_key->second.end() ? nullptr : &it->second;
}

std::vector<std::string> domain_shortfalls(const NodeDomains& domains, std::string_view key,
                                           const ResourceList& demand) {
  std::vector<std::string> out;
  for (const auto& [resource, wanted] : demand) {
    const LargestDomain* largest = domains.largest(key, resource);
    if (!largest || !(largest->room < wanted)) continue;
    const bool bytes = is_byte_resource(resource);
    out.push_back(wanted.str(bytes) + " " + resource + " inside one " + std::string(key) + ", and the largest (" +
                  std::string(key) + "=" + largest->value + ", " + std::to_string(largest->nodes) +
                  (largest->nodes == 1 ? " node" : " nodes") + ") has " + largest->room.str(bytes));
  }
  return out;
}

}  // namespace wm::view
