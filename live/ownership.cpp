#include "live/ownership.h"

#include <map>

#include "base/json/json_read.h"

namespace wm::live {

namespace {

// An object or a pod: nodes [0, objects) are Snapshot::objects, the rest Snapshot::pods.
struct Node {
  LiveObject object;
  std::string uid;
  std::string_view owner_api_version, owner_kind, owner_uid;  // its controller's
  size_t parent = SIZE_MAX;
  bool stand_in = false;  // a pod owned by the pod it holds a place for
};

// Its controller; for a pod without one, a pod that owns it (YuniKorn's placeholders are owned so by the pod they
// hold a place for, k8shim pkg/cache/metadata.go: a stand-in, never a workload of its own, as policy/owners.h has it).
void read_controller(Node& node, bool is_pod) {
  node.uid = std::string(json::string_at(node.object.object, "/metadata/uid"));
  simdjson::dom::array owners;
  if (node.object.object.at_pointer("/metadata/ownerReferences").get(owners) != simdjson::SUCCESS) return;
  for (simdjson::dom::element o : owners) {
    bool controller = false;
    const bool stand_in = is_pod && json::string_member(o, "kind") == "Pod" && node.owner_uid.empty();
    if (!stand_in && (o["controller"].get(controller) != simdjson::SUCCESS || !controller)) continue;
    node.owner_api_version = json::string_member(o, "apiVersion");
    node.owner_kind = json::string_member(o, "kind");
    node.owner_uid = json::string_member(o, "uid");
    node.stand_in = !controller;
    if (controller) return;
  }
}

std::vector<Node> nodes_of(const catalog::Catalog& catalog, const Snapshot& snapshot) {
  std::vector<Node> nodes;
  nodes.reserve(snapshot.objects.size() + snapshot.pods.size());
  for (const auto& o : snapshot.objects) nodes.push_back(Node{o, {}, {}, {}, {}});
  for (const auto& p : snapshot.pods) nodes.push_back(Node{LiveObject{p, "v1", "Pod"}, {}, {}, {}, {}});
  std::map<std::string_view, size_t> by_uid;
  for (size_t i = 0; i < nodes.size(); ++i) read_controller(nodes[i], i >= snapshot.objects.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].uid.empty()) by_uid.emplace(nodes[i].uid, i);
  const size_t objects = snapshot.objects.size();
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    auto owner = by_uid.find(n.owner_uid);
    if (n.owner_uid.empty() || owner == by_uid.end() || owner->second == i) continue;
    const auto [group, version] = json::split_api_version(n.object.api_version);
    // A pod is its controller's whatever the kinds; an object only where the catalog counts it its owner's part.
    if (i >= objects || catalog.part_of_its_owner(n.owner_api_version, n.owner_kind, group, n.object.kind))
      n.parent = owner->second;
  }
  return nodes;
}

}  // namespace

std::vector<WorkloadTree> workload_trees(const catalog::Catalog& catalog, const Snapshot& snapshot) {
  std::vector<Node> nodes = nodes_of(catalog, snapshot);
  const size_t objects = snapshot.objects.size();
  const bool pods_are_workloads = catalog.find("v1", "Pod").definition != nullptr;
  std::vector<WorkloadTree> trees;
  std::map<size_t, size_t> tree_of_root;
  auto root_of = [&](size_t i) {
    for (int depth = 0; nodes[i].parent != SIZE_MAX && depth < 32; ++depth) i = nodes[i].parent;
    return i;
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].parent != SIZE_MAX || (i >= objects && !pods_are_workloads)) continue;
    tree_of_root.emplace(i, trees.size());
    trees.push_back(WorkloadTree{nodes[i].object, {}, {}, {}, {}, {nodes[i].uid}});
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto tree = tree_of_root.find(root_of(i));
    if (tree == tree_of_root.end()) continue;
    WorkloadTree& t = trees[tree->second];
    if (i >= objects)
      (nodes[i].stand_in ? t.stand_ins : t.pods).push_back(i - objects);
    else if (tree->first != i)
      t.children.push_back(i);
    else
      continue;
    t.uids.insert(nodes[i].uid);
  }
  std::map<std::string_view, size_t> tree_of_uid;
  for (size_t t = 0; t < trees.size(); ++t)
    for (const auto& uid : trees[t].uids)
      if (!uid.empty()) tree_of_uid.emplace(uid, t);
  for (size_t g = 0; g < snapshot.gang_objects.size(); ++g) {
    simdjson::dom::array owners;
    if (snapshot.gang_objects[g].object.at_pointer("/metadata/ownerReferences").get(owners) != simdjson::SUCCESS)
      continue;
    for (simdjson::dom::element o : owners)
      if (auto t = tree_of_uid.find(json::string_member(o, "uid")); t != tree_of_uid.end()) {
        trees[t->second].gang_objects.push_back(g);
        break;
      }
  }
  return trees;
}

}  // namespace wm::live
