// Kueue as the oracle of the kueue profile: the queue name the webhook writes is the one Kueue reads, a workload
// over its ClusterQueue's quota stays suspended with Kueue's own reason, and one within it is admitted and runs
// (bound by kube-scheduler on fake GPU nodes). Kueue runs with its own webhooks and shipped integrations.
#include <catch2/catch.hpp>

#include "tests/cluster/scheduler_bed.h"

using namespace wm::test;
using namespace std::chrono_literals;

namespace {

// A flavor for the pool's nodes, a ClusterQueue with `gpus` nominal GPUs of it, and LocalQueue `queue` in `ns`.
std::string kueue_queues(const std::string& pool, const std::string& ns, const std::string& queue, int gpus) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: " + pool +
         "}\nspec:\n  nodeLabels: {workload-map.io/node-pool: " + pool +
         "}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + pool +
         "}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
         "    - name: " +
         pool + "\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: " + std::to_string(gpus) +
         "}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: " + queue +
         ", namespace: " + ns + "}\nspec: {clusterQueue: " + pool + "}\n";
}

std::string jsonpath(const std::string& ns, const std::string& object, const std::string& path) {
  CommandResult r = Cluster::get().kubectl({"get", "-n", ns, object, "-o", "jsonpath={" + path + "}"});
  return r.status == 0 ? r.out : "<" + r.err + ">";
}

// The Workload Kueue made for a JobSet (Kueue names it jobset-<name>-<hash>), as "name".
std::string workload_of(const std::string& ns, const std::string& jobset) {
  CommandResult r = Cluster::get().kubectl(
      {"get", "workloads.kueue.x-k8s.io", "-n", ns, "-o",
       "jsonpath={range .items[?(@.metadata.ownerReferences[0].name==\"" + jobset + "\")]}{.metadata.name}{end}"});
  return r.status == 0 ? r.out : "";
}

}  // namespace

TEST_CASE("kueue: a 20-GPU JobSet over a 12-GPU quota stays suspended with Kueue reason and a 12-GPU one runs") {
  start_scheduler("kueue");
  const std::string pool = node_pool("quota");
  add_nodes(pool, 5, 4);  // 20 GPUs of nodes: only the quota holds the big one back
  const std::string ns = make_namespace("quota-kueue", true);
  kubectl_apply(ns, kueue_queues(pool, ns, "team-a", 12));
  const std::string policy = policy_for(ns, "kueue", "team-a");
  RegisteredWebhook webhook(policy, "base", cluster_side_args("quota-kueue"));

  kubectl_apply(ns, jobset_yaml({.name = "big", .jobs = {{"workers", 5}}, .gpus = 4, .pool = pool}));
  kubectl_apply(ns, jobset_yaml({.name = "fits", .jobs = {{"workers", 3}}, .gpus = 4, .pool = pool}));

  // The queue name the webhook wrote is the one Kueue read.
  CHECK(jsonpath(ns, "jobset/fits", ".metadata.labels.kueue\\.x-k8s\\.io/queue-name") == "team-a");
  std::string fits_workload, big_workload;
  REQUIRE(eventually([&] { return !(fits_workload = workload_of(ns, "fits")).empty(); }, 60s, 500ms));
  REQUIRE(eventually([&] { return !(big_workload = workload_of(ns, "big")).empty(); }, 60s, 500ms));
  CHECK(jsonpath(ns, "workloads.kueue.x-k8s.io/" + fits_workload, ".spec.queueName") == "team-a");

  const std::string fits_pods = "jobset.sigs.k8s.io/jobset-name=fits";
  bool runs = eventually([&] { return count_pods(ns, fits_pods).running == 3; }, 90s, 500ms);
  INFO(describe(ns) << Cluster::get().kubectl({"get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "yaml"}).out);
  CHECK(runs);
  CHECK(jsonpath(ns, "workloads.kueue.x-k8s.io/" + fits_workload,
                 ".status.conditions[?(@.type==\"Admitted\")].status") == "True");

  // The big one: suspended, no pod, and Kueue says why.
  CHECK(jsonpath(ns, "jobset/big", ".spec.suspend") == "true");
  CHECK(count_pods(ns, "jobset.sigs.k8s.io/jobset-name=big").total == 0);
  const std::string reserved = ".status.conditions[?(@.type==\"QuotaReserved\")]";
  CHECK(jsonpath(ns, "workloads.kueue.x-k8s.io/" + big_workload, reserved + ".status") == "False");
  const std::string why = jsonpath(ns, "workloads.kueue.x-k8s.io/" + big_workload, reserved + ".message");
  INFO(why);
  CHECK(why.find("insufficient quota for nvidia.com/gpu") != std::string::npos);
  // `get` and `describe`: the big one Pending (queued by Kueue, not suspended by its user), in Kueue's words; the one
  // that fits Running.
  const std::string said = check_live(ns, policy, "JobSet", "big", {"Pending", 5, 0, 20, "0/5 Pending"});
  INFO(said);
  CHECK(said.find(why) != std::string::npos);
  check_live(ns, policy, "JobSet", "fits", {"Running", 3, 3, 12, "3/3", false});
}
