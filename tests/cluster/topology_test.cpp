// One topology line of the policy, with the schedulers as the oracle, on fake racks: 8 nodes of 8 GPUs in a pool,
// two racks of 32 GPUs (example.com/rack). A rule keeps every gang of its namespace inside one rack; the same
// workloads in a namespace whose rule has no topology are the control. Under KAI (its podgrouper reads the workload's
// annotations into the PodGroup's topologyConstraint, over a kai.scheduler Topology of the rack level) and under
// native (kube-scheduler's topology placement, feature gate TopologyAwareWorkloadScheduling, reading the PodGroup's
// schedulingConstraints): a gang larger than a rack binds none of its pods, and binds across racks without the line;
// a gang that fits only the rack with room lands there whole. Nothing here binds a pod or makes a PodGroup.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kRack = "example.com/rack";

// The shipped profiles, a topology of racks, and two rules: `placed` inside one rack, `free` without a topology.
std::string topology_policy(const std::string& profile, const std::string& topology, const std::string& placed,
                            const std::string& free) {
  const std::string shipped = read_file(source_path("manifests/base/policy.yaml"));
  const std::string rule = "  kinds: [\"*\"]\n  profile: " + profile + "\n  failurePolicy: Fail\n";
  return shipped.substr(0, shipped.find("\nrules:")) + "\ntopologies:\n  " + topology + ":\n    levels: [" + kRack +
         "]\nrules:\n- name: placed\n  namespaces: [\"" + placed + "\"]\n" + rule + "  topology: {name: " + topology +
         ", required: " + kRack + "}\n- name: free\n  namespaces: [\"" + free + "\"]\n" + rule +
         "- name: registration-probe\n  namespaces: [\"webhook-probe-*\"]\n  kinds: [Pod]\n  profile: kai\n";
}

// The rack of each node of `pool`, by node name.
std::map<std::string, std::string> racks_of(const std::string& pool) {
  CommandResult r = Cluster::get().kubectl(
      {"get", "nodes", "-l", "workload-map.io/node-pool=" + pool, "-o",
       "jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.example\\.com/rack}{\"\\n\"}{end}"});
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (auto eq = line.find('='); eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  return out;
}

// The racks the bound pods of JobSet `name` in `ns` are on.
std::set<std::string> racks_used(const std::string& ns, const std::string& name, const std::string& pool) {
  CommandResult r = Cluster::get().kubectl({"get", "pods", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name=" + name,
                                            "-o", "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}"});
  REQUIRE(r.status == 0);
  const auto racks = racks_of(pool);
  std::set<std::string> out;
  std::istringstream lines(r.out);
  for (std::string node; std::getline(lines, node);)
    if (!node.empty()) out.insert(racks.count(node) ? racks.at(node) : "(no rack: " + node + ")");
  return out;
}

// What the scheduler recorded of the gang's constraint: the PodGroup's required level, as the API server kept it.
std::string recorded_level(const std::string& profile, const std::string& ns) {
  const bool kai = profile == "kai";
  std::string level;
  eventually(
      [&] {
        CommandResult r = Cluster::get().kubectl(
            {"get", kai ? "podgroups.scheduling.run.ai" : "podgroups.scheduling.k8s.io", "-n", ns, "-o",
             kai ? "jsonpath={.items[*].spec.topologyConstraint.requiredTopologyLevel}"
                 : "jsonpath={.items[*].spec.schedulingConstraints.topology[*].key}"});
        level = r.status == 0 ? r.out : "";
        return !level.empty();
      },
      30s, 500ms);
  return level;
}

void gangs_stay_in_one_rack(const std::string& profile) {
  start_scheduler(profile);
  const std::string pool = node_pool("racks-" + profile);
  add_nodes(pool, 4, 8, {std::string(kRack) + "=" + pool + "-r0"});
  add_nodes(pool, 4, 8, {std::string(kRack) + "=" + pool + "-r1"});
  const std::string placed = make_namespace("placed-" + profile, true), free = make_namespace("free-" + profile, true);
  if (profile == "kai") {
    Cluster::get().kubectl({"apply", "-f", "-"},
                           "apiVersion: kai.scheduler/v1alpha1\nkind: Topology\nmetadata:\n"
                           "  name: " +
                               pool + "\nspec:\n  levels:\n  - nodeLabel: " + kRack + "\n");
  }
  RegisteredWebhook webhook(topology_policy(profile, pool, placed, free), "base",
                            cluster_side_args("racks-" + profile));
  auto bound = [&](const std::string& ns, const std::string& name) {
    return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=" + name).bound;
  };

  // 5 pods x 8 GPUs: 40 GPUs, more than a rack's 32.
  kubectl_apply(placed, jobset_yaml({.name = "wide", .jobs = {{"workers", 5}}, .gpus = 8, .pool = pool}));
  REQUIRE(eventually([&] { return count_pods(placed, "jobset.sigs.k8s.io/jobset-name=wide").total == 5; }, 60s, 500ms));
  {
    INFO(describe(placed));
    CHECK(stays([&] { return bound(placed, "wide") == 0; }, 10s));
    CHECK(recorded_level(profile, placed) == kRack);
  }
  Cluster::get().kubectl({"delete", "jobsets", "--all", "-n", placed, "--wait=true"});
  REQUIRE(eventually([&] { return count_pods(placed, "jobset.sigs.k8s.io/jobset-name=wide").total == 0; }, 60s, 500ms));
  // Without the line, the same gang binds, across both racks.
  kubectl_apply(free, jobset_yaml({.name = "wide", .jobs = {{"workers", 5}}, .gpus = 8, .pool = pool}));
  {
    const bool all = eventually([&] { return bound(free, "wide") == 5; }, 60s, 500ms);
    INFO(describe(free));
    REQUIRE(all);
    CHECK(racks_used(free, "wide", pool).size() == 2);
  }
  Cluster::get().kubectl({"delete", "jobsets", "--all", "-n", free, "--wait=true"});
  REQUIRE(eventually([&] { return count_pods(free, "jobset.sigs.k8s.io/jobset-name=wide").total == 0; }, 60s, 500ms));

  // Rack r0 half full (2 fillers of 8 GPUs, pinned there, of the namespace without the line): a gang of 3 x 8 GPUs
  // fits only r1, where it lands whole.
  std::string filler = jobset_yaml({.name = "filler", .jobs = {{"hold", 2}}, .gpus = 8, .pool = pool});
  const std::string selector = "{workload-map.io/node-pool: " + pool + "}";
  filler.replace(filler.find(selector), selector.size(),
                 "{workload-map.io/node-pool: " + pool + ", " + kRack + ": " + pool + "-r0}");
  kubectl_apply(free, filler);
  REQUIRE(eventually([&] { return bound(free, "filler") == 2; }, 60s, 500ms));
  kubectl_apply(placed, jobset_yaml({.name = "fits", .jobs = {{"workers", 3}}, .gpus = 8, .pool = pool}));
  const bool all = eventually([&] { return bound(placed, "fits") == 3; }, 60s, 500ms);
  INFO(describe(placed));
  REQUIRE(all);
  CHECK(racks_used(placed, "fits", pool) == std::set<std::string>{pool + "-r1"});
}

}  // namespace

TEST_CASE(
    "kai: topology: a gang kept in one rack binds none of its pods when larger than a rack, and lands whole "
    "in the rack with room") {
  gangs_stay_in_one_rack("kai");
}

TEST_CASE(
    "native: topology: a gang kept in one rack binds none of its pods when larger than a rack, and "
    "lands whole in the rack with room") {
  gangs_stay_in_one_rack("native");
}
