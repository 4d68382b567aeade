// One topology line of the policy, with the schedulers as the oracle, on fake racks: 8 nodes of 8 GPUs in a pool,
// two racks of 32 GPUs (example.com/rack). A rule keeps every gang of its namespace inside one rack; the same
// workloads in a namespace whose rule has no topology are the control. Under KAI (its podgrouper reads the workload's
// annotations into the PodGroup's topologyConstraint, over a kai.scheduler Topology of the rack level) and under
// native (kube-scheduler's topology placement, feature gate TopologyAwareWorkloadScheduling, reading the PodGroup's
// schedulingConstraints), under Kueue (topology-aware scheduling: a Topology behind the pool's ResourceFlavor, the
// pod sets' podset-required-topology) and under Volcano (its PodGroup's networkTopology, over HyperNodes its controller
// discovers from the rack label): a gang larger than a rack binds none of its pods (Kueue admits none), and binds
// across racks without the line; a gang that fits only the rack with room lands there whole, and so does each group
// of a LeaderWorkerSet (KAI, native: a gang per group; Kueue: a workload per group, its leader and workers tied by
// podset-group-name), or waits rather than split. Admission warns of the
// gang larger than a rack, from the Nodes the cluster side watches, and of KAI's missing Topology. Nothing here binds a
// pod or makes a PodGroup.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kRack = "example.com/rack";

// The shipped profiles, a topology of racks, and three rules: `placed` inside one rack, `free` without a topology,
// `jobs` each sub-group inside one rack.
std::string topology_policy(const std::string& profile, const std::string& topology, const std::string& placed,
                            const std::string& free, const std::string& jobs) {
  const std::string shipped = read_file(source_path("manifests/base/policy.yaml"));
  const std::string rule = "  kinds: [\"*\"]\n  profile: " + profile + "\n  failurePolicy: Fail\n" +
                           (profile == "kueue" ? "  queue: {value: team}\n" : "");
  return shipped.substr(0, shipped.find("\nrules:")) + "\ntopologies:\n  " + topology + ":\n    levels: [" + kRack +
         "]\nrules:\n- name: placed\n  namespaces: [\"" + placed + "\"]\n" + rule + "  topology: {name: " + topology +
         ", required: " + kRack + "}\n- name: jobs\n  namespaces: [\"" + jobs + "\"]\n" + rule +
         "  topology: {name: " + topology + ", subGroups: {required: " + kRack + "}}\n- name: free\n  namespaces: [\"" +
         free + "\"]\n" + rule +
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

// The racks the bound pods of JobSet `name` in `ns` are on; only those of replicated job `job`, when given.
std::set<std::string> racks_used(const std::string& ns, const std::string& name, const std::string& pool,
                                 const std::string& job = "") {
  std::string selector = "jobset.sigs.k8s.io/jobset-name=" + name;
  if (!job.empty()) selector += ",jobset.sigs.k8s.io/replicatedjob-name=" + job;
  CommandResult r = Cluster::get().kubectl(
      {"get", "pods", "-n", ns, "-l", selector, "-o", "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}"});
  REQUIRE(r.status == 0);
  const auto racks = racks_of(pool);
  std::set<std::string> out;
  std::istringstream lines(r.out);
  for (std::string node; std::getline(lines, node);)
    if (!node.empty()) out.insert(racks.count(node) ? racks.at(node) : "(no rack: " + node + ")");
  return out;
}

// What the scheduler recorded of the gang's constraint, as the API server kept it: the PodGroup's required level (KAI,
// native), the Workload's pod sets' topology request (Kueue).
std::string recorded_level(const std::string& profile, const std::string& ns) {
  const std::map<std::string, std::pair<std::string, std::string>> where = {
      {"kai", {"podgroups.scheduling.run.ai", "{.items[*].spec.topologyConstraint.requiredTopologyLevel}"}},
      {"native", {"podgroups.scheduling.k8s.io", "{.items[*].spec.schedulingConstraints.topology[*].key}"}},
      {"kueue", {"workloads.kueue.x-k8s.io", "{.items[*].spec.podSets[*].topologyRequest.required}"}},
      {"volcano",
       {"podgroups.scheduling.volcano.sh",
        "{.items[*].spec.networkTopology.highestTierName}{.items[*].spec.networkTopology.highestTierAllowed}"}}};
  std::string level;
  eventually(
      [&] {
        CommandResult r = Cluster::get().kubectl(
            {"get", where.at(profile).first, "-n", ns, "-o", "jsonpath=" + where.at(profile).second});
        level = r.status == 0 ? r.out : "";
        return !level.empty();
      },
      30s, 500ms);
  // Volcano's scheduler records the tier name as the number of the HyperNodes' tier of that name
  // (actions/allocate updateJobTier): the name again, from the HyperNodes of that tier.
  if (profile == "volcano" && !level.empty() && std::isdigit(static_cast<unsigned char>(level[0]))) {
    const std::string named =
        Cluster::get()
            .kubectl({"get", "hypernodes.topology.volcano.sh", "-o",
                      "jsonpath={range .items[?(@.spec.tier==" + level + ")]}{.spec.tierName}{\"\\n\"}{end}"})
            .out;
    level = named.substr(0, named.find('\n'));
  }
  return level;
}

std::string topology_object(const std::string& api_version, const std::string& name) {
  return "apiVersion: " + api_version + "\nkind: Topology\nmetadata: {name: " + name +
         "}\nspec:\n  levels:\n  - nodeLabel: " + kRack + "\n";
}

// Kueue's topology-aware scheduling: a Topology of the rack level behind the pool's ResourceFlavor, a ClusterQueue of
// every GPU of the pool, and queue `team` in each namespace.
void kueue_racks(const std::string& pool, const std::vector<std::string>& namespaces) {
  std::string objects = topology_object("kueue.x-k8s.io/v1beta2", pool) +
                        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: " + pool +
                        "}\nspec:\n  nodeLabels: {workload-map.io/node-pool: " + pool + "}\n  topologyName: " + pool +
                        "\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + pool +
                        "}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n"
                        "    flavors:\n    - name: " +
                        pool + "\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 64}\n";
  for (const auto& ns : namespaces)
    objects += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: team, namespace: " + ns +
               "}\nspec: {clusterQueue: " + pool + "}\n";
  CommandResult r = Cluster::get().kubectl({"apply", "-f", "-"}, objects);
  INFO(r.err);
  REQUIRE(r.status == 0);
}

// What a server-side dry run of `yaml` in `ns` is warned of, once `said` holds for the warnings (within 30 s).
std::string warnings_once(const std::string& ns, const std::string& yaml,
                          const std::function<bool(const std::string&)>& said) {
  std::string warnings;
  eventually(
      [&] {
        warnings = Cluster::get().kubectl({"create", "--dry-run=server", "-n", ns, "-f", "-"}, yaml).err;
        return said(warnings);
      },
      30s, 500ms);
  return warnings;
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

struct Racks {
  std::string profile, pool, placed, free, jobs;
  int bound(const std::string& ns, const std::string& name) const {
    return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=" + name).bound;
  }
  void delete_jobsets(const std::string& ns, const std::string& name) const {
    Cluster::get().kubectl({"delete", "jobsets", "--all", "-n", ns, "--wait=true"});
    REQUIRE(
        eventually([&] { return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=" + name).total == 0; }, 60s, 500ms));
  }
};

// 5 pods x 8 GPUs (40 GPUs, more than a rack's 32): admission warns, and under the line the scheduler binds none (Kueue
// admits none: no pod is made); without it, all five bind, across both racks.
void larger_than_a_rack(const Racks& r) {
  const std::string wide = jobset_yaml({.name = "wide", .jobs = {{"workers", 5}}, .gpus = 8, .pool = r.pool});
  if (r.profile == "kai") {
    // KAI places by a Topology of the policy topology's name: until there is one, admission says KAI has none.
    const std::string said = warnings_once(r.placed, wide, [](const std::string& w) { return has(w, "cannot place"); });
    CHECK_THAT(said, Catch::Contains("no kai.scheduler/v1alpha1 Topology named " + r.pool + " exists"));
    REQUIRE(Cluster::get().kubectl({"apply", "-f", "-"}, topology_object("kai.scheduler/v1alpha1", r.pool)).status ==
            0);
  }
  const std::string said = warnings_once(
      r.placed, wide, [](const std::string& w) { return has(w, "never starts") && !has(w, "cannot place"); });
  // The largest rack of the bed: this pool's, or another test's of the same size.
  CHECK_THAT(said, Catch::Contains("gang wide needs 40 nvidia.com/gpu inside one " + std::string(kRack) +
                                   ", and the largest (" + kRack + "=racks-") &&
                       Catch::Contains(", 4 nodes) has 32") && !Catch::Contains("cannot place"));
  kubectl_apply(r.placed, wide);
  if (r.profile != "kueue")
    REQUIRE(
        eventually([&] { return count_pods(r.placed, "jobset.sigs.k8s.io/jobset-name=wide").total == 5; }, 60s, 500ms));
  {
    INFO(describe(r.placed));
    CHECK(recorded_level(r.profile, r.placed) == kRack);
    CHECK(stays([&] { return r.bound(r.placed, "wide") == 0; }, 10s));
    if (r.profile == "kueue")  // suspended from its creation (docs/gangs.md: Kueue's webhooks called again)
      CHECK(count_pods(r.placed, "jobset.sigs.k8s.io/jobset-name=wide").total == 0);
  }
  r.delete_jobsets(r.placed, "wide");
  kubectl_apply(r.free, wide);
  const bool all = eventually([&] { return r.bound(r.free, "wide") == 5; }, 60s, 500ms);
  INFO(describe(r.free));
  REQUIRE(all);
  CHECK(racks_used(r.free, "wide", r.pool).size() == 2);
  r.delete_jobsets(r.free, "wide");
}

// Rack r0 half full (2 fillers of 8 GPUs, pinned there, of the namespace without the line): a gang of 3 x 8 GPUs fits
// only r1, where it lands whole.
void lands_in_the_rack_with_room(const Racks& r) {
  std::string filler = jobset_yaml({.name = "filler", .jobs = {{"hold", 2}}, .gpus = 8, .pool = r.pool});
  const std::string selector = "{workload-map.io/node-pool: " + r.pool + "}";
  filler.replace(filler.find(selector), selector.size(),
                 "{workload-map.io/node-pool: " + r.pool + ", " + kRack + ": " + r.pool + "-r0}");
  kubectl_apply(r.free, filler);
  REQUIRE(eventually([&] { return r.bound(r.free, "filler") == 2; }, 60s, 500ms));
  kubectl_apply(r.placed, jobset_yaml({.name = "fits", .jobs = {{"workers", 3}}, .gpus = 8, .pool = r.pool}));
  const bool all = eventually([&] { return r.bound(r.placed, "fits") == 3; }, 60s, 500ms);
  INFO(describe(r.placed));
  REQUIRE(all);
  CHECK(racks_used(r.placed, "fits", r.pool) == std::set<std::string>{r.pool + "-r1"});
}

// The racks the bound pods of each group of LeaderWorkerSet `name` are on, by group index.
std::map<std::string, std::set<std::string>> group_racks(const Racks& r, const std::string& name) {
  CommandResult got = Cluster::get().kubectl(
      {"get", "pods", "-n", r.placed, "-l", "leaderworkerset.sigs.k8s.io/name=" + name, "-o",
       "jsonpath={range .items[*]}{.metadata.labels.leaderworkerset\\.sigs\\.k8s\\.io/group-index}={.spec.nodeName}"
       "{\"\\n\"}{end}"});
  REQUIRE(got.status == 0);
  const auto racks = racks_of(r.pool);
  std::map<std::string, std::set<std::string>> out;
  std::istringstream lines(got.out);
  for (std::string line; std::getline(lines, line);)
    if (auto eq = line.find('='); eq != std::string::npos && eq + 1 < line.size())
      out[line.substr(0, eq)].insert(racks.count(line.substr(eq + 1)) ? racks.at(line.substr(eq + 1)) : "?");
  return out;
}

// With r0's two fillers still there and the fitting JobSet gone (r0: 2 free nodes, r1: 4), a LeaderWorkerSet of 2
// groups of 3 pods x 8 GPUs, each group a gang inside one rack: one group lands whole in r1, and the other, which would
// fit only across racks (2 nodes in r0, 1 in r1), binds none. Under Kueue each group has a leader template: its leader
// and its workers are two pod sets, kept in one rack only by the group name the profile writes (podset-group-name).
void each_group_in_one_rack(const Racks& r) {
  r.delete_jobsets(r.placed, "fits");
  const std::string pod_spec = R"(
      spec:
        nodeSelector: {workload-map.io/node-pool: )" +
                               r.pool +
                               R"(}
        containers: [{name: vllm, image: registry.example/vllm:1, resources: {limits: {nvidia.com/gpu: 8}}}])";
  kubectl_apply(r.placed, R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3)" + (r.profile == "kueue" ? "\n    leaderTemplate:" + pod_spec : "") +
                              "\n    workerTemplate:" + pod_spec + "\n");
  auto one_group_in_r1 = [&] {
    const auto groups = group_racks(r, "serve");
    return groups.size() == 1 && groups.begin()->second == std::set<std::string>{r.pool + "-r1"} &&
           count_pods(r.placed, "leaderworkerset.sigs.k8s.io/name=serve").bound == 3;
  };
  const bool placed = eventually(one_group_in_r1, 60s, 500ms);
  INFO(describe(r.placed));
  REQUIRE(placed);
  CHECK(stays(one_group_in_r1, 10s));
  if (r.profile == "kueue")  // each group's Workload: its leader and worker pod sets in one group
    CHECK(Cluster::get()
              .kubectl({"get", "workloads.kueue.x-k8s.io", "-n", r.placed, "-o",
                        "jsonpath={.items[*].spec.podSets[*].topologyRequest.podSetGroupName}"})
              .out == "serve-group serve-group serve-group serve-group");
}

// KAI: each sub-group in one rack (a rule's subGroups level, on the JobSet's Job templates, where KAI's JobSet grouper
// reads a Job's own topology), the gang free to span racks. With r0's two fillers (r0: 2 free nodes, r1: 4), a JobSet
// of two Jobs of 3 pods x 8 GPUs binds none (both Jobs cannot each have a rack), where without the line all six bind;
// once r0 is free, each Job lands whole in a rack of its own.
void each_job_in_one_rack(const Racks& r) {
  Cluster::get().kubectl({"delete", "leaderworkersets", "--all", "-n", r.placed, "--wait=true"});
  REQUIRE(eventually([&] { return count_pods(r.placed, "leaderworkerset.sigs.k8s.io/name=serve").total == 0; }, 60s,
                     500ms));
  const std::string two_jobs = jobset_yaml({.name = "jobs", .jobs = {{"a", 3}, {"b", 3}}, .gpus = 8, .pool = r.pool});
  kubectl_apply(r.jobs, two_jobs);
  REQUIRE(eventually([&] { return count_pods(r.jobs, "jobset.sigs.k8s.io/jobset-name=jobs").total == 6; }, 60s, 500ms));
  std::string recorded;
  eventually(
      [&] {
        recorded = Cluster::get()
                       .kubectl({"get", "podgroups.scheduling.run.ai", "-n", r.jobs, "-o",
                                 "jsonpath={.items[*].spec.subGroups[*].topologyConstraint.requiredTopologyLevel}"})
                       .out;
        return !recorded.empty();
      },
      30s, 500ms);
  {
    INFO(describe(r.jobs));
    CHECK(recorded == std::string(kRack) + " " + kRack);  // a leaf per Job, each with the rack
    CHECK(stays([&] { return r.bound(r.jobs, "jobs") == 0; }, 10s));
  }
  kubectl_apply(r.free, two_jobs);
  const bool across = eventually([&] { return r.bound(r.free, "jobs") == 6; }, 60s, 500ms);
  INFO(describe(r.free));
  REQUIRE(across);
  Cluster::get().kubectl({"delete", "jobsets", "--all", "-n", r.free, "--wait=true"});  // the fillers too
  const bool placed = eventually([&] { return r.bound(r.jobs, "jobs") == 6; }, 90s, 500ms);
  INFO(describe(r.jobs));
  REQUIRE(placed);
  CHECK(racks_used(r.jobs, "jobs", r.pool, "a").size() == 1);
  CHECK(racks_used(r.jobs, "jobs", r.pool, "b").size() == 1);
}

void gangs_stay_in_one_rack(const std::string& profile) {
  start_scheduler(profile);
  Racks r{profile, node_pool("racks-" + profile), "", ""};
  add_nodes(r.pool, 4, 8, {std::string(kRack) + "=" + r.pool + "-r0"});
  add_nodes(r.pool, 4, 8, {std::string(kRack) + "=" + r.pool + "-r1"});
  r.placed = make_namespace("placed-" + profile, true);
  r.free = make_namespace("free-" + profile, true);
  r.jobs = "jobs-" + profile;
  if (profile == "kueue") kueue_racks(r.pool, {r.placed, r.free});
  if (profile == "volcano") {  // Volcano's controller makes a HyperNode per rack from the label (its start.sh)
    auto hypernodes = [&] {
      return Cluster::get()
          .kubectl({"get", "hypernodes.topology.volcano.sh", "-o",
                    "jsonpath={range .items[?(@.spec.tierName==\"" + std::string(kRack) +
                        "\")]}{.spec.members[*].selector.exactMatch.name}{\" \"}{end}"})
          .out;
    };
    // A discovery that fails is retried with a growing back-off (discovery/label/label.go work): on a loaded cold run
    // the second rack's last nodes were still missing after 60 s.
    const bool made = eventually(
        [&] { return has(hypernodes(), (r.pool + "-0").c_str()) && has(hypernodes(), (r.pool + "-7").c_str()); }, 180s,
        500ms);
    INFO(hypernodes());
    REQUIRE(made);
  }
  if (profile == "kai") r.jobs = make_namespace(r.jobs, true);
  RegisteredWebhook webhook(topology_policy(profile, r.pool, r.placed, r.free, r.jobs), "base",
                            cluster_side_args("racks-" + profile));
  larger_than_a_rack(r);
  lands_in_the_rack_with_room(r);
  // Not Volcano's: LWS makes its groups' PodGroups itself, without the line (a warning at admission).
  if (profile != "volcano") each_group_in_one_rack(r);
  // Per sub-group levels reach KAI only (its JobSet grouper): the other profiles drop them, a warning at admission.
  if (profile == "kai") each_job_in_one_rack(r);
}

constexpr const char* kBlock = "example.com/block";

// A JobSet of one pod of 8 GPUs pinned to rack `rack` of `pool`.
std::string pinned_filler(const std::string& name, const std::string& pool, const std::string& rack) {
  std::string filler = jobset_yaml({.name = name, .jobs = {{"hold", 1}}, .gpus = 8, .pool = pool});
  const std::string selector = "{workload-map.io/node-pool: " + pool + "}";
  filler.replace(filler.find(selector), selector.size(),
                 "{workload-map.io/node-pool: " + pool + ", " + kRack + ": " + rack + "}");
  return filler;
}

// The blocks and racks of the bound pods of JobSet `name` in `ns`, as "block/rack" per pod.
std::multiset<std::string> blocks_and_racks(const std::string& ns, const std::string& name, const std::string& pool) {
  CommandResult nodes =
      Cluster::get().kubectl({"get", "nodes", "-l", "workload-map.io/node-pool=" + pool, "-o",
                              "jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.example\\.com/block}/"
                              "{.metadata.labels.example\\.com/rack}{\"\\n\"}{end}"});
  REQUIRE(nodes.status == 0);
  std::map<std::string, std::string> where;
  std::istringstream node_lines(nodes.out);
  for (std::string line; std::getline(node_lines, line);)
    if (auto eq = line.find('='); eq != std::string::npos) where[line.substr(0, eq)] = line.substr(eq + 1);
  CommandResult pods = Cluster::get().kubectl({"get", "pods", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name=" + name,
                                               "-o", "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}"});
  REQUIRE(pods.status == 0);
  std::multiset<std::string> out;
  std::istringstream pod_lines(pods.out);
  for (std::string node; std::getline(pod_lines, node);)
    if (!node.empty()) out.insert(where.count(node) ? where.at(node) : "?");
  return out;
}

}  // namespace

// Two blocks of two racks of 2 nodes x 8 GPUs, a rule "inside one block, preferably one rack" (KAI: required and
// preferred levels of one Topology). With one node held in each rack of block b0, a gang of 3 pods x 8 GPUs fits only
// b1, where it lands across b1's racks (the rack is only preferred); a gang of 2 pods then finds b0's two free nodes in
// two racks and b1's last node: it lands in b0, inside one block, though not in one rack.
TEST_CASE("kai: topology: a gang kept in one block, preferably one rack, lands inside one block") {
  start_scheduler("kai");
  const std::string pool = node_pool("blocks-kai");
  for (const char* block : {"b0", "b1"})
    for (const char* rack : {"r0", "r1"})
      add_nodes(pool, 2, 8,
                {std::string(kBlock) + "=" + pool + "-" + block, std::string(kRack) + "=" + pool + "-" + block + rack});
  const std::string ns = make_namespace("nested-kai", true);
  const std::string shipped = read_file(source_path("manifests/base/policy.yaml"));
  const std::string policy =
      shipped.substr(0, shipped.find("\nrules:")) + "\ntopologies:\n  " + pool + ":\n    levels: [" + kBlock + ", " +
      kRack + "]\nrules:\n- name: nested\n  namespaces: [\"" + ns +
      "\"]\n  kinds: [\"*\"]\n  profile: kai\n  failurePolicy: Fail\n  topology: {name: " + pool +
      ", required: " + kBlock + ", preferred: " + kRack +
      "}\n- name: registration-probe\n  namespaces: [\"webhook-probe-*\"]\n  kinds: [Pod]\n"
      "  profile: kai\n";
  REQUIRE(Cluster::get()
              .kubectl({"apply", "-f", "-"},
                       "apiVersion: kai.scheduler/v1alpha1\nkind: Topology\nmetadata: {name: " + pool +
                           "}\nspec:\n  levels:\n  - nodeLabel: " + kBlock + "\n  - nodeLabel: " + kRack + "\n")
              .status == 0);
  RegisteredWebhook webhook(policy, "base", cluster_side_args("blocks-kai"));
  for (const char* rack : {"b0r0", "b0r1"}) {
    const std::string name = std::string("hold-") + rack;
    kubectl_apply(ns, pinned_filler(name, pool, pool + "-" + rack));
    REQUIRE(
        eventually([&] { return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=" + name).bound == 1; }, 60s, 500ms));
  }
  kubectl_apply(ns, jobset_yaml({.name = "three", .jobs = {{"workers", 3}}, .gpus = 8, .pool = pool}));
  const bool three =
      eventually([&] { return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=three").bound == 3; }, 60s, 500ms);
  INFO(describe(ns));
  REQUIRE(three);
  const auto at = blocks_and_racks(ns, "three", pool);
  CHECK(std::all_of(at.begin(), at.end(), [&](const std::string& w) { return w.rfind(pool + "-b1/", 0) == 0; }));
  CHECK(std::set<std::string>(at.begin(), at.end()).size() == 2);  // across b1's two racks
  // KAI's record: the required and the preferred level.
  CHECK(Cluster::get()
            .kubectl({"get", "podgroups.scheduling.run.ai", "-n", ns, "-o",
                      "jsonpath={range .items[?(@.spec.topologyConstraint.requiredTopologyLevel)]}"
                      "{.spec.topologyConstraint.requiredTopologyLevel}/"
                      "{.spec.topologyConstraint.preferredTopologyLevel}{\"\\n\"}{end}"})
            .out.find(std::string(kBlock) + "/" + kRack) != std::string::npos);
  kubectl_apply(ns, jobset_yaml({.name = "two", .jobs = {{"workers", 2}}, .gpus = 8, .pool = pool}));
  const bool two =
      eventually([&] { return count_pods(ns, "jobset.sigs.k8s.io/jobset-name=two").bound == 2; }, 60s, 500ms);
  REQUIRE(two);
  const auto two_at = blocks_and_racks(ns, "two", pool);
  CHECK(
      std::all_of(two_at.begin(), two_at.end(), [&](const std::string& w) { return w.rfind(pool + "-b0/", 0) == 0; }));
}

TEST_CASE(
    "kai: topology: a gang kept in one rack binds none of its pods when larger than a rack, lands whole in the rack "
    "with room, and so does each group of a LeaderWorkerSet, and each Job of a JobSet kept per sub-group") {
  gangs_stay_in_one_rack("kai");
}

TEST_CASE(
    "native: topology: a gang kept in one rack binds none of its pods when larger than a rack, lands whole in the "
    "rack with room, and so does each group of a LeaderWorkerSet") {
  gangs_stay_in_one_rack("native");
}

TEST_CASE(
    "kueue: topology: a gang kept in one rack is admitted to none when larger than a rack, lands whole in the rack "
    "with room, and so does each leader and worker group of a LeaderWorkerSet") {
  gangs_stay_in_one_rack("kueue");
}

TEST_CASE(
    "volcano: topology: a gang kept in one rack binds none of its pods when larger than a rack, and lands whole in "
    "the rack with room") {
  gangs_stay_in_one_rack("volcano");
}
