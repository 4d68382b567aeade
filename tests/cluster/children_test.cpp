// Real children: kube-controller-manager's controllers make ReplicaSets, Jobs and Pods from workloads the webhook
// admitted, and those children pass admission again. Each must carry its top-level workload's group, decided once
// at the top and carried down by the pod templates, never re-decided from the child's own name.
// The real JobSet and LeaderWorkerSet controllers (LWS's with its DisaggregatedSet controller) run beside the control
// plane (tests/cluster/operator.sh).
#include <catch2/catch.hpp>

#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm::test;

namespace {

const char* const kVolcanoRules = R"(- name: volcano
  namespaces: ["*"]
  kinds: ["*"]
  profile: volcano
  queue: {default: research}
)";

const char* const kContainer = R"([{"name":"c","image":"busybox","resources":{"limits":{"nvidia.com/gpu":1}}}])";

// The Pods in `ns` whose labels match `selector`, once there are `count` of them.
std::vector<std::string> wait_for_pods(const std::string& ns, const std::string& selector, size_t count) {
  const Cluster& cluster = Cluster::get();
  std::vector<std::string> pods;
  const bool made = eventually(
      [&] {
        CommandResult r = cluster.kubectl({"get", "pods", "-n", ns, "-l", selector, "-o", "name"});
        pods.clear();
        for (size_t at = 0, end; (end = r.out.find('\n', at)) != std::string::npos; at = end + 1)
          pods.push_back(r.out.substr(at, end - at));
        return pods.size() >= count;
      },
      std::chrono::seconds(60));
  INFO("pods in " << ns << " with " << selector);
  REQUIRE(made);
  return pods;
}

// Every Pod in `pods` carries `group` as its Volcano group and is scheduled by Volcano.
void check_group(const std::string& ns, const std::vector<std::string>& pods, const std::string& group) {
  simdjson::dom::parser parser;
  for (const auto& pod : pods) {
    auto object = Cluster::get().get_json(parser, {"get", pod, "-n", ns});
    INFO(pod);
    CHECK(string_at(object, "/metadata/annotations/scheduling.k8s.io~1group-name") == group);
    CHECK(string_at(object, "/metadata/annotations/scheduling.volcano.sh~1queue-name") == "research");
    CHECK(string_at(object, "/spec/schedulerName") == "volcano");
    CHECK(string_at(object, "/metadata/annotations/workload-map.io~1gang-size") == "<missing>");
  }
}

// Every Pod in `pods` is scheduled by Volcano and carries no group name of workload-map's: LWS's own integration
// names each group's PodGroup.
void check_handed_to_lws(const std::string& ns, const std::vector<std::string>& pods) {
  simdjson::dom::parser parser;
  for (const auto& pod : pods) {
    auto object = Cluster::get().get_json(parser, {"get", pod, "-n", ns});
    INFO(pod);
    CHECK(string_at(object, "/spec/schedulerName") == "volcano");
    CHECK(string_at(object, "/metadata/annotations/scheduling.k8s.io~1group-name") == "<missing>");
  }
}

std::string create(const std::string& ns, const std::string& json) {
  CommandResult r = Cluster::get().kubectl({"create", "-n", ns, "-o", "json", "-f", "-"}, json);
  INFO(json << "\n" << r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

}  // namespace

TEST_CASE("pods made by kube-controller-manager carry their top-level workload's group") {
  const Cluster& cluster = Cluster::get();
  RegisteredWebhook webhook(policy_with_rules(kVolcanoRules));
  const std::string ns = make_namespace("children", true);
  const std::string pod_spec = std::string(R"({"restartPolicy":"Never","containers":)") + kContainer + "}";

  SECTION("Deployment -> ReplicaSet -> Pods") {
    create(ns, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,
      "selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
      "spec":{"containers":)" +
                   std::string(kContainer) + "}}}}");
    check_group(ns, wait_for_pods(ns, "app=web", 2), "web");
    CHECK(webhook.requests("mutate", "ReplicaSet", "controlled") >= 1);
    CHECK(webhook.requests("mutate", "Pod", "controlled") >= 2);
  }
  SECTION("StatefulSet -> Pods") {
    create(ns, R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":2,
      "serviceName":"db","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},
      "spec":{"containers":)" +
                   std::string(kContainer) + "}}}}");
    // OrderedReady: db-1 waits for db-0 to be ready, which never happens without nodes.
    check_group(ns, wait_for_pods(ns, "app=db", 1), "db");
  }
  SECTION("Job -> Pods") {
    create(ns, R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"batch"},"spec":{"parallelism":2,
      "completions":2,"template":{"spec":)" +
                   pod_spec + "}}}");
    check_group(ns, wait_for_pods(ns, "batch.kubernetes.io/job-name=batch", 2), "batch");
    CHECK(webhook.requests("mutate", "Pod", "controlled") >= 2);
  }
  SECTION("CronJob -> Job -> Pods") {
    create(ns, R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"nightly"},"spec":{
      "schedule":"0 0 * * *","jobTemplate":{"spec":{"template":{"spec":)" +
                   pod_spec + "}}}}}");
    // A run now, as `kubectl create job --from=cronjob` starts one: the CronJob's template, the CronJob its controller
    // (ownerReferences, controller: true), as the CronJob controller makes them; its schedule's next full minute would
    // cost this test 30 s on average.
    CommandResult r = cluster.kubectl({"create", "job", "nightly-manual", "-n", ns, "--from=cronjob/nightly"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    check_group(ns, wait_for_pods(ns, "batch.kubernetes.io/job-name=nightly-manual", 1), "nightly");
    CHECK(webhook.requests("mutate", "Job", "controlled") >= 1);
  }
  SECTION("JobSet -> Jobs (the real JobSet controller) -> Pods") {
    create(ns, std::string(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"train"},
      "spec":{"replicatedJobs":[{"name":"workers","replicas":2,"template":{"spec":{"parallelism":2,"completions":2,
      "template":{"spec":)") +
                   pod_spec + "}}}}]}}");
    // Two Jobs of two pods each, made by the JobSet controller and then the Job controller.
    check_group(ns, wait_for_pods(ns, "jobset.sigs.k8s.io/jobset-name=train", 4), "train");
    CHECK(webhook.requests("mutate", "Job", "controlled") >= 2);
    CHECK(webhook.requests("mutate", "JobSet", "patched") >= 1);
  }
  SECTION("LeaderWorkerSet -> StatefulSets and Pods (the real LWS controller), handed to LWS's own integration") {
    const std::string lws = create(ns, std::string(R"({"apiVersion":"leaderworkerset.x-k8s.io/v1",
      "kind":"LeaderWorkerSet","metadata":{"name":"serve"},"spec":{"replicas":2,"leaderWorkerTemplate":{"size":2,
      "workerTemplate":{"spec":{"containers":)") +
                                           kContainer + "}}}}}");
    simdjson::dom::parser parser;
    simdjson::dom::element stored;
    REQUIRE(parser.parse(lws).get(stored) == simdjson::SUCCESS);
    // The groups share their templates: LWS's Volcano integration names each group's PodGroup on its pods, and
    // reads the queue from the LWS (policy.yaml, the volcano profile's LeaderWorkerSet override).
    CHECK(string_at(stored, "/metadata/annotations/scheduling.volcano.sh~1queue-name") == "research");
    CHECK(string_at(stored, "/metadata/annotations/workload-map.io~1group-name") == "<missing>");
    // The leader StatefulSet makes 2 leader Pods; each leader Pod makes its group's worker StatefulSet, which makes
    // 1 worker Pod: 3 StatefulSets and 4 Pods, none of them a workload of its own.
    check_handed_to_lws(ns, wait_for_pods(ns, "leaderworkerset.sigs.k8s.io/name=serve", 4));
    CHECK(webhook.requests("mutate", "StatefulSet", "controlled") >= 3);
    CHECK(webhook.requests("mutate", "Pod", "controlled") >= 4);
  }
  SECTION("DisaggregatedSet -> LeaderWorkerSets (the real LWS controller's DisaggregatedSet controller) -> Pods") {
    // LWS v0.9's controller: a LeaderWorkerSet per role, with the role's pod templates copied whole.
    create(ns, std::string(R"({"apiVersion":"disaggregatedset.x-k8s.io/v1","kind":"DisaggregatedSet",
      "metadata":{"name":"infer"},"spec":{"roles":[
      {"name":"prefill","spec":{"replicas":1,"leaderWorkerTemplate":{"size":2,"workerTemplate":{"spec":{"containers":)") +
                   kContainer + R"(}}}}},
      {"name":"decode","spec":{"replicas":1,"leaderWorkerTemplate":{"size":1,"workerTemplate":{"spec":{"containers":)" +
                   kContainer + "}}}}}]}}");
    // prefill: a group of 2 pods; decode: a group of 1; each pod with the set's edits, none re-decided below it.
    check_handed_to_lws(ns, wait_for_pods(ns, "disaggregatedset.x-k8s.io/name=infer", 3));
    // The queue annotation in each role's metadata reached its LeaderWorkerSet, where LWS's provider reads it.
    const CommandResult sets =
        cluster.kubectl({"get", "leaderworkersets", "-n", ns, "-l", "disaggregatedset.x-k8s.io/name=infer", "-o",
                         "jsonpath={.items[*].metadata.annotations.scheduling\\.volcano\\.sh/queue-name}"});
    CHECK(sets.out == "research research");
    CHECK(webhook.requests("mutate", "DisaggregatedSet", "patched") >= 1);
    CHECK(webhook.requests("mutate", "LeaderWorkerSet", "controlled") >= 2);
  }
}

TEST_CASE("under YuniKorn, a JobSet's pods made by the real controllers carry one app and the same task groups") {
  RegisteredWebhook webhook(policy_with_rules(R"(- name: yunikorn
  namespaces: ["*"]
  kinds: ["*"]
  profile: yunikorn
  queue: {default: root.research}
)"));
  const std::string ns = make_namespace("yunikorn", true);
  const std::string pod_spec = std::string(R"({"restartPolicy":"Never","containers":)") + kContainer + "}";
  create(ns, R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"train"},"spec":{
    "replicatedJobs":[
      {"name":"driver","template":{"spec":{"template":{"spec":)" +
                 pod_spec + R"(}}}},
      {"name":"workers","replicas":2,"template":{"spec":{"parallelism":2,"completions":2,"template":{"spec":)" +
                 pod_spec + "}}}}]}}");
  // 1 driver pod and 2 Jobs of 2 worker pods, made by the JobSet controller and then the Job controller.
  const auto pods = wait_for_pods(ns, "jobset.sigs.k8s.io/jobset-name=train", 5);
  simdjson::dom::parser parser;
  std::string task_groups;
  for (const auto& pod : pods) {
    auto object = Cluster::get().get_json(parser, {"get", pod, "-n", ns});
    INFO(pod);
    CHECK(string_at(object, "/spec/schedulerName") == "yunikorn");
    CHECK(string_at(object, "/metadata/labels/yunikorn.apache.org~1app-id") == "train");
    CHECK(string_at(object, "/metadata/labels/yunikorn.apache.org~1queue") == "root.research");
    const std::string job = string_at(object, "/metadata/labels/jobset.sigs.k8s.io~1replicatedjob-name");
    CHECK(string_at(object, "/metadata/annotations/yunikorn.apache.org~1task-group-name") == job);
    const std::string groups = string_at(object, "/metadata/annotations/yunikorn.apache.org~1task-groups");
    if (task_groups.empty()) task_groups = groups;
    CHECK(groups == task_groups);
  }
  CHECK(task_groups ==
        R"([{"name":"driver","minMember":1,"minResource":{"nvidia.com/gpu":"1"},"nodeSelector":{},"tolerations":[]},)"
        R"({"name":"workers","minMember":4,"minResource":{"nvidia.com/gpu":"1"},"nodeSelector":{},"tolerations":[]}])");
  CHECK(webhook.requests("mutate", "Pod", "controlled") >= 5);
}
