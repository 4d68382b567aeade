// The scheduler as the oracle of `inspect --profile`: every corpus workload whose operator or scheduler integration
// runs in this bed (JobSet, LeaderWorkerSet, KubeRay, Kueue's PyTorchJob integration) is created through the API
// server, and what the scheduler side made of it is read back: Kueue's Workloads (one per JobSet, one per
// LeaderWorkerSet group; their pod sets' counts) and the Volcano PodGroups that LeaderWorkerSet's and KubeRay's own
// integrations make (minMember). The gangs the profile's view gives for the same object must be the same, gang for
// gang. Each line of the table in docs/gangs.md is one line this test prints.
#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;
using namespace std::chrono_literals;

namespace {

// One text per gang, compared as a sorted list: a gang's minimum, or more where a scheduler's gangs have more shape.
using GangTexts = std::vector<std::string>;

std::string list_text(GangTexts v) {
  std::sort(v.begin(), v.end());
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + v[i];
  return out + "]";
}

GangTexts numbers(const std::vector<long long>& v) {
  GangTexts out;
  for (long long n : v) out.push_back(std::to_string(n));
  return out;
}

// The integer of each item of `kubectl get RESOURCE -n NS` (owned by `owner_kind`/`owner` where given), as `value`
// reads it.
std::vector<long long> per_item(const std::string& ns, const std::string& resource, const std::string& owner_kind,
                                const std::string& owner, const std::string& selector,
                                const std::function<long long(simdjson::dom::element)>& value) {
  simdjson::dom::parser parser;
  std::vector<std::string> args = {"get", resource, "-n", ns, "-o", "json"};
  if (!selector.empty()) args.insert(args.end(), {"-l", selector});
  simdjson::dom::element list = Cluster::get().get_json(parser, args);
  std::vector<long long> out;
  simdjson::dom::array items;
  if (list["items"].get_array().get(items) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element item : items) {
    if (!owner_kind.empty()) {
      bool owned = false;
      simdjson::dom::array owners;
      if (item.at_pointer("/metadata/ownerReferences").get_array().get(owners) == simdjson::SUCCESS)
        for (simdjson::dom::element o : owners)
          owned = owned || (string_at(o, "/kind") == owner_kind && string_at(o, "/name") == owner);
      if (!owned) continue;
    }
    out.push_back(value(item));
  }
  return out;
}

long long pod_set_total(simdjson::dom::element workload) {
  long long total = 0;
  simdjson::dom::array sets;
  if (workload.at_pointer("/spec/podSets").get_array().get(sets) == simdjson::SUCCESS)
    for (simdjson::dom::element s : sets) {
      int64_t n = 0;
      if (s["count"].get_int64().get(n) == simdjson::SUCCESS) total += n;
    }
  return total;
}

long long min_member(simdjson::dom::element pod_group) {
  int64_t n = -1;
  return pod_group.at_pointer("/spec/minMember").get_int64().get(n) == simdjson::SUCCESS ? n : -1;
}

// Every corpus object of `kinds` (by file folder), created in a namespace of its own under `profile` (the
// namespaces match `ns_glob`); `prepare(ns)` adds what the scheduler needs there. For each object, `observed`
// reads what the scheduler side made, and it must come to the profile's gangs.
// `refusal(object)`: the scheduler's own admission refuses some objects, with this message ("" for none).
// `expected(object)`: the profile's gangs as `observed` writes them (default: each gang's minMember, as
// profile_gangs gives it). `left_out(object)`: why no pod of it can reach the scheduler in this bed ("" for none).
void corpus_against_scheduler(
    const std::string& profile, const std::vector<std::string>& folders,
    const std::function<void(const std::string& ns)>& prepare,
    const std::function<GangTexts(const std::string& ns, const ParsedObject& object)>& observed,
    const std::function<std::string(const ParsedObject& object)>& refusal = {},
    const std::function<GangTexts(const ParsedObject& object)>& expected_of = {},
    const std::function<std::string(const ParsedObject& object)>& left_out = {}) {
  const std::string prefix = "oracle-" + profile + "-" + std::to_string(getpid() % 100000);
  RegisteredWebhook webhook(policy_for(prefix + "-*", profile, "team-a"), "base",
                            cluster_side_args("oracle-" + profile));
  // Every object is created first, then each is compared: the operators and the scheduler side work on all of them
  // at once, and the waits overlap (one at a time, KAI's 30-odd objects took 175 s).
  struct Created {
    std::string file, ns;
    const ParsedObject* object;
    GangTexts expected;
  };
  std::vector<std::vector<ParsedObject>> files;
  std::vector<Created> created_objects;
  int n = 0;
  for (const auto& file : corpus_files()) {
    const std::string folder = file.substr(0, file.find('/'));
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) continue;
    files.push_back(parse_file(corpus_dir() + "/" + file));
    for (const auto& object : files.back()) {
      if (!builtin_catalog().find(object.api_version, object.kind).definition) continue;
      INFO(file << ": " << object.kind << " " << object.name);
      const std::vector<long long> minimums = profile_gangs(object, profile, profile == "kueue");
      if (minimums.empty() || std::all_of(minimums.begin(), minimums.end(), [](long long m) { return m == 0; }))
        continue;  // no pod template (a scaffold with an empty spec): refused, nothing to compare
      if (const std::string why = left_out ? left_out(object) : ""; !why.empty()) {
        std::cout << "oracle | " << profile << " | " << file << " | " << object.kind << " " << object.name
                  << " | left out: " << why << "\n";
        continue;
      }
      const std::string ns = prefix + "-" + std::to_string(++n);
      create_namespace(ns, true);
      prepare(ns);
      CommandResult json = run_command({"jq", "-c", "del(.metadata.namespace)"}, simdjson::to_string(object.root));
      REQUIRE(json.status == 0);
      CommandResult created = Cluster::get().kubectl({"create", "-n", ns, "-f", "-"}, json.out);
      INFO(created.err);
      if (const std::string refused = refusal ? refusal(object) : ""; !refused.empty()) {
        std::cout << "oracle | " << profile << " | " << file << " | " << object.kind << " " << object.name
                  << " | refused: " << refused << "\n";
        CHECK(created.status != 0);
        CHECK(created.err.find(refused) != std::string::npos);
        continue;
      }
      REQUIRE(created.status == 0);
      created_objects.push_back({file, ns, &object, expected_of ? expected_of(object) : numbers(minimums)});
    }
  }
  int compared = 0;
  for (const Created& c : created_objects) {
    const ParsedObject& object = *c.object;
    INFO(c.file << ": " << object.kind << " " << object.name);
    GangTexts seen;
    const bool same = eventually(
        [&] {
          seen = observed(c.ns, object);
          return list_text(seen) == list_text(c.expected);
        },
        60s, 1s);
    std::cout << "oracle | " << profile << " | " << c.file << " | " << object.kind << " " << object.name
              << " | scheduler side " << list_text(seen) << " | workload-map " << list_text(c.expected) << "\n";
    CHECK(list_text(seen) == list_text(c.expected));
    compared += same;
  }
  CHECK(compared > 0);
}

// A gang as KAI shapes it: "min=N" (pods placed at once), or, where it has sub-groups, how many of them must start
// ("of=all" or a count) and each one's pods ("name:N"), sorted. KAI's PodGroup may be a tree
// (pkg/apis/scheduling/v2alpha2: subGroups with a parent, minSubGroup at the root and at inner sub-groups); an inner
// sub-group's pods are those of its minSubGroup smallest children (all when unset), a leaf's its minMember.
std::string kai_gang_text(long long min_member, std::optional<long long> min_sub_groups,
                          std::vector<std::pair<std::string, long long>> subs) {
  if (subs.empty()) return "min=" + std::to_string(min_member);
  std::sort(subs.begin(), subs.end());
  const bool all = !min_sub_groups || *min_sub_groups >= static_cast<long long>(subs.size());
  std::string out = "of=" + (all ? std::string("all") : std::to_string(*min_sub_groups));
  for (const auto& [name, pods] : subs) out += " " + name + ":" + std::to_string(pods);
  return out;
}

std::optional<long long> int_at(simdjson::dom::element e, const char* pointer) {
  int64_t n = 0;
  if (e.at_pointer(pointer).get_int64().get(n) != simdjson::SUCCESS) return std::nullopt;
  return n;
}

// What KAI's podgrouper made of `object`: its PodGroups (owned by the object), as kai_gang_text writes them.
GangTexts kai_pod_group_gangs(const std::string& ns, const ParsedObject& object) {
  simdjson::dom::parser parser;
  simdjson::dom::element list = Cluster::get().get_json(parser, {"get", "podgroups.scheduling.run.ai", "-n", ns});
  GangTexts out;
  for (simdjson::dom::element pg : list["items"].get_array().value()) {
    if (string_at(pg, "/metadata/ownerReferences/0/kind") != object.kind ||
        string_at(pg, "/metadata/ownerReferences/0/name") != object.name)
      continue;
    struct Node {
      long long min_member = 0;
      std::optional<long long> min_sub_group;
      std::vector<std::string> children;
    };
    std::map<std::string, Node> nodes;
    std::vector<std::string> top;
    simdjson::dom::array subs;
    if (pg.at_pointer("/spec/subGroups").get_array().get(subs) == simdjson::SUCCESS)
      for (simdjson::dom::element sub : subs) {
        std::string_view parent;
        if (sub["parent"].get_string().get(parent) != simdjson::SUCCESS) parent = {};  // a top sub-group
        const std::string name = string_at(sub, "/name");
        nodes[name].min_member = int_at(sub, "/minMember").value_or(0);
        nodes[name].min_sub_group = int_at(sub, "/minSubGroup");
        (parent.empty() ? top : nodes[std::string(parent)].children).push_back(name);
      }
    std::function<long long(const std::string&)> pods = [&](const std::string& name) -> long long {
      const Node& n = nodes[name];
      if (n.children.empty()) return n.min_member;
      std::vector<long long> sizes;
      for (const auto& c : n.children) sizes.push_back(pods(c));
      std::sort(sizes.begin(), sizes.end());
      const size_t needed = n.min_sub_group ? std::min<size_t>(*n.min_sub_group, sizes.size()) : sizes.size();
      long long total = 0;
      for (size_t i = 0; i < needed; ++i) total += sizes[i];
      return total;
    };
    std::vector<std::pair<std::string, long long>> top_pods;
    bool leaves = true;
    long long sum = 0;
    for (const auto& name : top) {
      top_pods.emplace_back(name, pods(name));
      leaves = leaves && nodes[name].children.empty();
      sum += top_pods.back().second;
    }
    const long long min_member = int_at(pg, "/spec/minMember").value_or(0);
    const std::optional<long long> min_sub_group = int_at(pg, "/spec/minSubGroup");
    // Leaves, all needed, that add up to the root's minMember say no more than it: KAI's LeaderWorkerSet group
    // (plugins/leaderworkerset: leader 1 and workers size-1 beside minMember size) is the gang of its size.
    if (min_member > 0 && leaves && sum == min_member &&
        (!min_sub_group || *min_sub_group >= static_cast<long long>(top.size())))
      top_pods.clear();
    out.push_back(kai_gang_text(min_member, min_sub_group, top_pods));
  }
  return out;
}

// What `workload-map inspect -o json --profile kai` says of `object`, as kai_gang_text writes it.
GangTexts inspect_kai_gangs(const ParsedObject& object) {
  const std::string file =
      write_temp("oracle-kai-" + object.kind + "-" + object.name + ".json", simdjson::to_string(object.root));
  CommandResult r = run_command({WM_CLI, "inspect", "-o", "json", "--profile", "kai", file});
  INFO(r.err);
  REQUIRE(r.status == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element view = parser.parse(r.out).value();
  if (view.is_array()) view = view.at(0).value();
  GangTexts out;
  for (simdjson::dom::element g : view["gangs"].get_array().value()) {
    std::vector<std::pair<std::string, long long>> subs;
    for (simdjson::dom::element sub : g["subGroups"].get_array().value())
      subs.emplace_back(string_at(sub, "/name"), int_at(sub, "/minMember").value_or(0));
    out.push_back(kai_gang_text(int_at(g, "/minMember").value_or(0), int_at(g, "/minSubGroups"), subs));
  }
  return out;
}

}  // namespace

// KAI's podgrouper (tests/cluster/schedulers/kai) makes the PodGroup of every pod's top owner by its own grouper for
// the kind (pkg/podgrouper/podgrouper/hub/hub.go): JobSet (plugins/jobset: a sub-group per replicated job, a leaf per
// replica), LeaderWorkerSet (a PodGroup per group), PyTorchJob (plugins/kubeflow). What it made must be what `inspect
// --profile kai` says, gang for gang, in the queue the profile wrote (docs/gangs.md has the table this test prints).
// Ray kinds are not among them: this bed's KubeRay runs its batch scheduler for Volcano, which it applies to every
// RayCluster's pods (schedulerName volcano), so KAI never sees them; KAI's Ray grouper is followed by the unit tests
// (tests/unit/mapper/view/gangs_test.cpp).
TEST_CASE(
    "kai: every corpus JobSet, LeaderWorkerSet and PyTorchJob gets from KAI's podgrouper the PodGroups inspect says") {
  start_scheduler("kai");
  start_operator("training-operator");
  corpus_against_scheduler(
      "kai", {"jobset", "leaderworkerset", "pytorchjob"},
      [](const std::string&) {
        // The queue the rule names, as a stock install makes its default-queue (the chart's templates/default-queue).
        kubectl_apply("default",
                      "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: team-a}\nspec:\n"
                      "  parentQueue: default-parent-queue\n  resources:\n"
                      "    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
                      "    cpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
                      "    memory: {quota: 0, limit: -1, overQuotaWeight: 1}\n");
      },
      [](const std::string& ns, const ParsedObject& object) {
        // Every PodGroup is in the queue the webhook wrote on the workload.
        simdjson::dom::parser parser;
        for (simdjson::dom::element pg :
             Cluster::get()
                 .get_json(parser, {"get", "podgroups.scheduling.run.ai", "-n", ns})["items"]
                 .get_array()
                 .value())
          CHECK(string_at(pg, "/spec/queue") == "team-a");
        return kai_pod_group_gangs(ns, object);
      },
      {}, inspect_kai_gangs,
      // A workload labelled for a Kueue queue (JobSet's TPU example) is Kueue's to admit: Kueue, which this bed also
      // runs, keeps it suspended, and no pod of it reaches KAI.
      [](const ParsedObject& object) -> std::string {
        simdjson::dom::element queue;
        return object.root.at_pointer("/metadata/labels/kueue.x-k8s.io~1queue-name").get(queue) == simdjson::SUCCESS
                   ? "labelled for a Kueue queue, which keeps it suspended"
                   : "";
      });
}

// Kueue admits a JobSet, a RayCluster, a RayJob (its submitter pod too, in K8sJobMode), an MPIJob or a PyTorchJob as
// one Workload whose pod sets count every pod it starts (jobs/jobset podsCountPerReplica, jobs/raycluster,
// jobs/rayjob, jobs/mpijob, jobs/kubeflow/jobs/pytorchjob: one pod set per replica type), and a LeaderWorkerSet as one
// Workload per group of `size` pods (jobs/leaderworkerset podSets): the kueue profile's all-pods gangs.
TEST_CASE(
    "kueue: every corpus JobSet, LeaderWorkerSet, Ray workload, MPIJob and PyTorchJob gets the Workloads the profile "
    "says") {
  start_scheduler("kueue");
  corpus_against_scheduler(
      "kueue", {"jobset", "leaderworkerset", "raycluster", "rayjob", "mpijob", "pytorchjob"},
      [](const std::string& ns) {
        // The ClusterQueue need not admit anything: Kueue makes the Workload of a queued object whatever the quota.
        kubectl_apply(ns, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + ns +
                              "}\nspec:\n  namespaceSelector: {}\n  resourceGroups: []\n---\n"
                              "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: team-a, "
                              "namespace: " +
                              ns + "}\nspec: {clusterQueue: " + ns + "}\n");
      },
      [](const std::string& ns, const ParsedObject& object) {
        return numbers(per_item(ns, "workloads.kueue.x-k8s.io", object.kind, object.name, "", pod_set_total));
      },
      // Kueue's own webhooks refuse two shapes of Ray workload once they carry the queue label the profile writes
      // (jobs/raycluster, jobs/rayjob validation): an autoscaled RayCluster that is not an elastic job, and a RayJob
      // that keeps its cluster after it finishes. Kueue says why. See docs/gangs.md.
      [](const ParsedObject& object) -> std::string {
        bool flag = false;
        if (object.kind == "RayCluster" &&
            object.root.at_pointer("/spec/enableInTreeAutoscaling").get_bool().get(flag) == simdjson::SUCCESS && flag)
          return "a kueue-managed RayCluster can use autoscaling only as an elastic job";
        if (object.kind == "RayJob" &&
            (object.root.at_pointer("/spec/shutdownAfterJobFinishes").get_bool().get(flag) != simdjson::SUCCESS ||
             !flag))
          return "a kueue managed job should delete the cluster after finishing";
        return "";
      });
}

// LeaderWorkerSet's own Volcano integration (on in this bed) makes a PodGroup per group with minMember the group's
// size (1 with LeaderReady): the volcano profile hands LWS to it, and its view must count the same gangs.
TEST_CASE("volcano: every corpus LeaderWorkerSet gets from LWS the PodGroups the volcano profile's gangs say") {
  start_scheduler("volcano");
  corpus_against_scheduler(
      "volcano", {"leaderworkerset"}, [](const std::string&) {},
      [](const std::string& ns, const ParsedObject& object) {
        return numbers(per_item(ns, "podgroups.scheduling.volcano.sh", "", "",
                                "leaderworkerset.sigs.k8s.io/name=" + object.name, min_member));
      });
}

// KubeRay's own Volcano integration (on in this bed's KubeRay, tests/cluster/operators/kuberay) makes one PodGroup for
// a RayCluster or a RayJob, minMember the head and the desired workers (the minimum ones with autoscaling), the
// submitter left out: the volcano profile hands Ray kinds to it, and its view counts them with KubeRay's minimums.
TEST_CASE("volcano: every corpus RayCluster and RayJob gets from KubeRay the PodGroup the volcano profile says") {
  start_scheduler("volcano");
  start_operator("kuberay");
  corpus_against_scheduler(
      "volcano", {"raycluster", "rayjob"}, [](const std::string&) {},
      [](const std::string& ns, const ParsedObject& object) {
        return numbers(per_item(ns, "podgroups.scheduling.volcano.sh", object.kind, object.name, "", min_member));
      });
}
