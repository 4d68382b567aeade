// The scheduler as the oracle of `inspect --profile`: every corpus workload whose operator or scheduler integration
// runs in this bed (JobSet, LeaderWorkerSet, KubeRay, Kueue's PyTorchJob integration) is created through the API
// server, and what the scheduler side made of it is read back: Kueue's Workloads (one per JobSet, one per
// LeaderWorkerSet group; their pod sets' counts) and the Volcano PodGroups that LeaderWorkerSet's and KubeRay's own
// integrations make (minMember). The gangs the profile's view gives for the same object must be the same, gang for gang.
// Each line of the table in docs/gangs.md is one line this test prints.
#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;
using namespace std::chrono_literals;

namespace {

std::string list_text(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + std::to_string(v[i]);
  return out + "]";
}

// Sum of the integers at `field` of each item of `kubectl get RESOURCE -n NS` whose `owner_field` is `owner`.
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
void corpus_against_scheduler(
    const std::string& profile, const std::vector<std::string>& folders,
    const std::function<void(const std::string& ns)>& prepare,
    const std::function<std::vector<long long>(const std::string& ns, const ParsedObject& object)>& observed,
    const std::function<std::string(const ParsedObject& object)>& refusal = {}) {
  const std::string prefix = "oracle-" + profile + "-" + std::to_string(getpid() % 100000);
  RegisteredWebhook webhook(policy_for(prefix + "-*", profile, "team-a"), "base",
                            cluster_side_args("oracle-" + profile));
  int compared = 0, n = 0;
  for (const auto& file : corpus_files()) {
    const std::string folder = file.substr(0, file.find('/'));
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) continue;
    for (auto& object : parse_file(corpus_dir() + "/" + file)) {
      if (!builtin_catalog().find(object.api_version, object.kind).definition) continue;
      INFO(file << ": " << object.kind << " " << object.name);
      const std::vector<long long> expected = profile_gangs(object, profile, profile == "kueue");
      if (expected.empty() || std::all_of(expected.begin(), expected.end(), [](long long m) { return m == 0; }))
        continue;  // no pod template (a scaffold with an empty spec): refused, nothing to compare
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
      std::vector<long long> seen;
      const bool same = eventually(
          [&] {
            seen = observed(ns, object);
            return list_text(seen) == list_text(expected);
          },
          60s, 1s);
      std::cout << "oracle | " << profile << " | " << file << " | " << object.kind << " " << object.name
                << " | scheduler side " << list_text(seen) << " | workload-map " << list_text(expected) << "\n";
      CHECK(list_text(seen) == list_text(expected));
      compared += same;
    }
  }
  CHECK(compared > 0);
}

}  // namespace

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
        return per_item(ns, "workloads.kueue.x-k8s.io", object.kind, object.name, "", pod_set_total);
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
        return per_item(ns, "podgroups.scheduling.volcano.sh", "", "",
                        "leaderworkerset.sigs.k8s.io/name=" + object.name, min_member);
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
        return per_item(ns, "podgroups.scheduling.volcano.sh", object.kind, object.name, "", min_member);
      });
}
