// The promise, with the schedulers as the oracle: a gang the webhook labelled starts whole or not at all, and two
// gangs never deadlock on half the GPUs each. Real schedulers (tests/cluster/scheduler.sh) on fake GPU nodes
// (tests/cluster/nodes.sh); the webhook registered as shipped, its cluster side writing the profile's PodGroups.
// Nothing here binds a pod or makes a PodGroup.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm::test;
using namespace std::chrono_literals;

namespace {

const char* const kJobSetPods = "jobset.sigs.k8s.io/jobset-name=";

// The same JobSet, 5 pods x 4 GPUs, on 3 nodes x 4 GPUs under default-scheduler: 3 pods bind and hold 12 GPUs, 2
// wait for ever. The failure a gang exists to prevent.
void default_scheduler_binds_part(const std::string& profile) {
  start_scheduler("default");
  const std::string pool = node_pool("nogang-" + profile);
  add_nodes(pool, 3, 4);
  const std::string ns = make_namespace("nogang-" + profile, true);  // no rule selects it
  kubectl_apply(ns, jobset_yaml({.name = "train", .jobs = {{"workers", 5}}, .gpus = 4, .pool = pool}));
  const std::string pods = std::string(kJobSetPods) + "train";
  bool three_bound = eventually([&] { return count_pods(ns, pods).bound == 3; }, 60s, 500ms);
  INFO(describe(ns));
  REQUIRE(three_bound);
  CHECK(stays(
      [&] {
        PodCounts p = count_pods(ns, pods);
        return p.bound == 3 && p.total == 5;
      },
      5s));
  CHECK(count_pods(ns, pods).running == 3);
}

// The rule's queue in these beds: KAI's is left to the profile, as the shipped policy leaves it (default-queue, which a
// stock KAI install makes); Volcano and YuniKorn take their "default".
std::string bed_queue(const std::string& profile) { return profile == "kai" ? "" : "default"; }

// How long a gang that waited for capacity may take to start once nodes join. The Coscheduling plugin requeues the
// pods it rejected only on a Pod add or a PodGroup add or update (EventsToRegister, scheduler-plugins v0.34.7
// pkg/coscheduling/coscheduling.go), not on a Node add: on a quiet cluster the gang waits for kube-scheduler's
// periodic flush of unschedulable pods, 5 minutes by default, every 30 s in the bed (schedulers/coscheduling/start.sh).
// The others react to the new nodes within a scheduling period.
std::chrono::seconds capacity_wakes(const std::string& profile) {
  return profile == "coscheduling" ? std::chrono::seconds(90) : std::chrono::seconds(60);
}

// Under the native profile, what kube-scheduler gangs by: every pod of the workload names its PodGroup in
// spec.schedulingGroup (each pod's admission copied it from the annotation the workload's admission wrote: the JobSet
// CRD prunes the field from its templates), and that scheduling.k8s.io/v1beta1 PodGroup, made by the cluster side
// and owned by the workload, asks for `min_count` of them, made from the one template of the workload's Workload
// (its controllerRef naming the JobSet), which the API server stored as the cluster side wrote it.
simdjson::dom::element native_object(simdjson::dom::parser& parser, const std::string& resource, const std::string& ns,
                                     const std::string& name) {
  simdjson::dom::element object;
  const bool found = eventually(
      [&] {
        CommandResult r = Cluster::get().kubectl({"get", resource, name, "-n", ns, "-o", "json"});
        return r.status == 0 && parser.parse(r.out).get(object) == simdjson::SUCCESS;
      },
      30s, 500ms);
  REQUIRE(found);
  return object;
}

void native_gang_is_kubernetes_own(const std::string& ns, const std::string& workload, const std::string& pods,
                                   int64_t min_count) {
  const Cluster& cluster = Cluster::get();
  CommandResult groups =
      cluster.kubectl({"get", "pods", "-n", ns, "-l", pods, "-o",
                       "jsonpath={range .items[*]}{.spec.schedulingGroup.podGroupName}{\"\\n\"}{end}"});
  REQUIRE(groups.status == 0);
  std::string every_pod;
  for (int i = 0; i < 5; ++i) every_pod += workload + "\n";
  CHECK(groups.out == every_pod);
  simdjson::dom::parser group_parser, workload_parser;
  const simdjson::dom::element group = native_object(group_parser, "podgroups.scheduling.k8s.io", ns, workload);
  int64_t min = 0;
  CHECK(group.at_pointer("/spec/schedulingPolicy/gang/minCount").get_int64().get(min) == simdjson::SUCCESS);
  CHECK(min == min_count);
  CHECK(string_at(group, "/metadata/ownerReferences/0/kind") == "JobSet");
  CHECK(string_at(group, "/metadata/ownerReferences/0/name") == workload);
  const simdjson::dom::element made = native_object(workload_parser, "workloads.scheduling.k8s.io", ns, workload);
  CHECK(string_at(made, "/spec/controllerRef/apiGroup") == "jobset.x-k8s.io");
  CHECK(string_at(made, "/spec/controllerRef/kind") == "JobSet");
  CHECK(string_at(made, "/spec/controllerRef/name") == workload);
  CHECK(string_at(made, "/metadata/ownerReferences/0/name") == workload);
  simdjson::dom::array templates;
  REQUIRE(made.at_pointer("/spec/podGroupTemplates").get_array().get(templates) == simdjson::SUCCESS);
  CHECK(templates.size() == 1);
  int64_t template_min = 0;
  CHECK(made.at_pointer("/spec/podGroupTemplates/0/schedulingPolicy/gang/minCount").get_int64().get(template_min) ==
        simdjson::SUCCESS);
  CHECK(template_min == min_count);
  CHECK(string_at(group, "/spec/workloadRef/workloadName") == workload);
  CHECK(string_at(group, "/spec/workloadRef/templateName") == string_at(made, "/spec/podGroupTemplates/0/name"));
}

// Under `profile`, the JobSet binds no pod on 12 GPUs; two more nodes, and all 5 bind (capacity_wakes).
void gang_starts_whole(const std::string& profile) {
  start_scheduler(profile);
  const std::string pool = node_pool("whole-" + profile);
  add_nodes(pool, 3, 4);
  const std::string ns = make_namespace("whole-" + profile, true);
  const std::string policy = policy_for(ns, profile, bed_queue(profile));
  std::vector<std::string> serve_args = cluster_side_args("whole-" + profile);
  serve_args.push_back("--workload-metrics");
  RegisteredWebhook webhook(policy, "base", serve_args);
  const uint16_t port = webhook.server().port();
  kubectl_apply(ns, jobset_yaml({.name = "train", .jobs = {{"workers", 5}}, .gpus = 4, .pool = pool}));
  const std::string pods = std::string(kJobSetPods) + "train";
  REQUIRE(eventually([&] { return count_pods(ns, pods).total == 5; }, 60s, 500ms));
  // YuniKorn holds the gang's place with placeholder pods of the app (the task groups the webhook wrote), which are
  // not the JobSet's: the real pods replace them once all fit.
  const std::string placeholders = "yunikorn.apache.org/app-id=train,!jobset.sigs.k8s.io/jobset-name";
  if (profile == "yunikorn") {
    INFO(describe(ns));
    CHECK(eventually([&] { return count_pods(ns, placeholders).total == 5; }, 60s, 500ms));
  }
  {
    INFO(describe(ns));
    CHECK(stays([&] { return count_pods(ns, pods).bound == 0; }, 7s));
  }
  if (profile == "native") native_gang_is_kubernetes_own(ns, "train", pods, 5);
  // Meanwhile `get` says it is Pending, none of its pods scheduled (the last 3 s of 10 without a pod bound), and
  // `describe` why, in the scheduler's words; the webhook's workload metrics count it the same.
  const std::string said = check_live(ns, policy, "JobSet", "train", {"Pending", 5, 0, 20, "0/5", true, port});
  INFO(profile << " says:\n" << said);
  if (profile == "kai") CHECK(said.find("didn't have enough resources: GPUs") != std::string::npos);
  add_nodes(pool, 2, 4);
  bool all_bound = eventually([&] { return count_pods(ns, pods).bound == 5; }, capacity_wakes(profile), 500ms);
  INFO(describe(ns));
  CHECK(all_bound);
  CHECK(eventually([&] { return count_pods(ns, pods).running == 5; }, 30s, 500ms));
  check_live(ns, policy, "JobSet", "train", {"Running", 5, 5, 20, "5/5", false, port});
  if (profile == "yunikorn") CHECK(eventually([&] { return count_pods(ns, placeholders).total == 0; }, 60s, 500ms));
}

// Two 3-pod x 4-GPU JobSets on 4 nodes x 4 GPUs: one runs whole, the other waits whole; when the first finishes,
// the second runs.
// YuniKorn reserves a gang's room with placeholder pods that it places one by one, as its shim creates them. So the
// placeholders of two gangs that arrive together can split the room between them (YuniKorn's docs call this partial
// reservation "resource segmentation", user_guide/gang_scheduling.md; seen once in about ten runs here, 2 and 2).
// Both gangs then wait, whole, until the placeholder timeout (placeholderTimeoutInSeconds, 900 s in the profile).
// That case is recognised by its placeholders, and what is checked is what YuniKorn still keeps: no real pod bound to
// half a gang (docs/gangs.md).
void gangs_never_deadlock(const std::string& profile) {
  start_scheduler(profile);
  const std::string pool = node_pool("pair-" + profile);
  add_nodes(pool, 4, 4);
  const std::string ns = make_namespace("pair-" + profile, true);
  RegisteredWebhook webhook(policy_for(ns, profile, bed_queue(profile)), "base", cluster_side_args("pair-" + profile));
  kubectl_apply(ns, jobset_yaml({.name = "first", .jobs = {{"workers", 3}}, .gpus = 4, .pool = pool}) + "---\n" +
                        jobset_yaml({.name = "second", .jobs = {{"workers", 3}}, .gpus = 4, .pool = pool}));
  const std::string first = std::string(kJobSetPods) + "first", second = std::string(kJobSetPods) + "second";
  auto one_whole_one_none = [&] {
    const PodCounts a = count_pods(ns, first), b = count_pods(ns, second);
    return (a.bound == 3 && b.bound == 0) || (a.bound == 0 && b.bound == 3);
  };
  bool one_runs = eventually(one_whole_one_none, 60s, 500ms);
  if (!one_runs && profile == "yunikorn") {
    auto placeholders_split = [&](const std::string& app) {
      const PodCounts held = count_pods(ns, "yunikorn.apache.org/app-id=" + app + ",!jobset.sigs.k8s.io/jobset-name");
      return held.bound > 0 && held.bound < 3;
    };
    auto no_real_pod_bound = [&] { return count_pods(ns, first).bound == 0 && count_pods(ns, second).bound == 0; };
    INFO(describe(ns));
    REQUIRE((placeholders_split("first") && placeholders_split("second")));
    CHECK(stays(no_real_pod_bound, 10s));
    WARN("YuniKorn's placeholders split the room between the two gangs; both wait for the placeholder timeout");
    return;
  }
  {
    INFO(describe(ns));
    REQUIRE(one_runs);
    CHECK(stays(one_whole_one_none, 10s));
  }
  const bool first_ran = count_pods(ns, first).bound == 3;
  const std::string& ran = first_ran ? first : second;
  const std::string& waited = first_ran ? second : first;
  complete_pods(ns, ran);
  REQUIRE(eventually([&] { return count_pods(ns, ran).succeeded == 3; }, 30s, 500ms));
  bool then_runs =
      eventually([&] { return count_pods(ns, waited).running == 3; }, capacity_wakes(profile) + 30s, 500ms);
  INFO(describe(ns));
  CHECK(then_runs);
}

// A LeaderWorkerSet of 3 groups x 4 pods x 2 GPUs, no leaderTemplate (the common shape), on 16 GPUs: room for
// exactly 2 groups. Each group is a gang of its own: 2 whole groups bind, none half. Under Volcano the groups are
// LWS's own to gang (its Volcano integration, on in this bed's LWS: fixture.sh --lws-gang-scheduling volcano); under
// coscheduling and YuniKorn each pod's admission names its group's gang (webhook/replica_gang.h), and the cluster
// side makes a PodGroup per group; under KAI its podgrouper makes a PodGroup per group itself
// (plugins/leaderworkerset).
// YuniKorn places a gang's placeholders one by one, so the placeholders of two groups can split the room for the
// second whole group between them (seen once in about eight runs: one placeholder of group 0 and three of group 1
// running, both short, until YuniKorn's placeholder timeout, 15 minutes by default). No real pod binds to half a
// group even then, so under YuniKorn the test asks for no half group and at least one whole (docs/gangs.md).
void lws_binds_whole_groups(const std::string& profile) {
  start_scheduler(profile);
  const std::string pool = node_pool("groups-" + profile);
  add_nodes(pool, 2, 8);
  const std::string ns = make_namespace("groups-" + profile, true);
  const std::string policy = policy_for(ns, profile, bed_queue(profile));
  std::vector<std::string> serve_args = cluster_side_args("groups-" + profile);
  serve_args.push_back("--workload-metrics");
  RegisteredWebhook webhook(policy, "base", serve_args);
  kubectl_apply(ns, R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 4
    workerTemplate:
      spec:
        nodeSelector: {workload-map.io/node-pool: )" +
                        pool + R"(}
        containers: [{name: vllm, image: registry.example/vllm:1, resources: {limits: {nvidia.com/gpu: 2}}}]
)");
  auto group_pods = [&](int group) {
    return count_pods(
        ns, "leaderworkerset.sigs.k8s.io/name=serve,leaderworkerset.sigs.k8s.io/group-index=" + std::to_string(group));
  };
  const int least_whole = profile == "yunikorn" ? 1 : 2;  // room for 2
  auto two_whole_none_half = [&] {
    int whole = 0;
    for (int g = 0; g < 3; ++g) {
      const PodCounts p = group_pods(g);
      if (p.bound != 0 && p.bound != 4) return false;
      whole += p.bound == 4;
    }
    return whole >= least_whole;
  };
  REQUIRE(eventually([&] { return count_pods(ns, "leaderworkerset.sigs.k8s.io/name=serve").total == 12; }, 90s, 500ms));
  bool settled = eventually(two_whole_none_half, capacity_wakes(profile) + 30s, 500ms);
  INFO(describe(ns));
  REQUIRE(settled);
  CHECK(stays(two_whole_none_half, profile == "volcano" ? 8s : 10s));  // volcano's `get` below observes 2 s more
  // `get` counts the groups' pods as one workload's (Initializing, as the definition says of an LWS not all ready),
  // and their gangs as Volcano records them: a PodGroup per group, LWS's own, the waiting group's in Volcano's words;
  // the webhook's workload metrics count the same (one gang of three waiting).
  if (profile == "volcano") {
    const std::string said =
        check_live(ns, policy, "LeaderWorkerSet", "serve",
                   {"Initializing", 12, 8, 24, "8/12 NotEnoughResources", true, webhook.server().port()});
    INFO(said);
    CHECK(said.find("tasks in gang unschedulable") != std::string::npos);
  }
  if (profile != "native") return;
  // One Workload of one template, which every group's PodGroup names: the groups share their pod template.
  simdjson::dom::parser workload_parser;
  const simdjson::dom::element made = native_object(workload_parser, "workloads.scheduling.k8s.io", ns, "serve");
  simdjson::dom::array templates;
  REQUIRE(made.at_pointer("/spec/podGroupTemplates").get_array().get(templates) == simdjson::SUCCESS);
  CHECK(templates.size() == 1);
  const std::string template_name(string_at(made, "/spec/podGroupTemplates/0/name"));
  for (int g = 0; g < 3; ++g) {
    simdjson::dom::parser parser;
    const std::string name = "serve-" + template_name + "-" + std::to_string(g);
    const simdjson::dom::element group = native_object(parser, "podgroups.scheduling.k8s.io", ns, name);
    CHECK(string_at(group, "/spec/workloadRef/workloadName") == "serve");
    CHECK(string_at(group, "/spec/workloadRef/templateName") == template_name);
  }
}

}  // namespace

TEST_CASE(
    "coscheduling: a 5-pod gang on 12 GPUs binds no pod where default-scheduler binds 3 and all 5 once two more nodes "
    "join") {
  default_scheduler_binds_part("coscheduling");
  gang_starts_whole("coscheduling");
}
TEST_CASE(
    "volcano: a 5-pod gang on 12 GPUs binds no pod where default-scheduler binds 3 and all 5 once two more nodes "
    "join") {
  default_scheduler_binds_part("volcano");
  gang_starts_whole("volcano");
}
TEST_CASE(
    "yunikorn: a 5-pod gang on 12 GPUs binds no pod where default-scheduler binds 3 and all 5 once two more nodes "
    "join") {
  default_scheduler_binds_part("yunikorn");
  gang_starts_whole("yunikorn");
}

// Under KAI (tests/cluster/schedulers/kai), with the shipped rule's queue: default-queue, which a stock install makes.
// default-scheduler's half-bound gang is shown by the tests above; it is not run again here.
TEST_CASE("kai: a 5-pod gang on 12 GPUs binds no pod and all 5 once two more nodes join") { gang_starts_whole("kai"); }
// default-scheduler's half-bound JobSet is shown beside the other profiles; kube-scheduler is the same binary here.
TEST_CASE(
    "native: a 5-pod gang on 12 GPUs binds no pod and all 5 once two more nodes join, in the PodGroup the JobSet "
    "owns") {
  gang_starts_whole("native");
}

// Root Jobs under native, with the Job controller's own gangs on (WorkloadWithJob, in this bed): one gang each, never
// two. A Job that asks the Job controller for its gang (spec.scheduling) is handed off (the profile's override): the
// Job controller makes its Workload and PodGroup and names that PodGroup on the pods it creates (kubernetes v1.37
// pkg/controller/job/job_scheduling_manager.go), workload-map makes none, and kube-scheduler runs that gang: 3 pods of
// 4 GPUs on 8 GPUs bind none, and all 3 once a node joins. Any other root Job's template names workload-map's gang
// (podSchedulingGroup), so the Job controller makes none ("the user brought their own PodGroup").
TEST_CASE("native: root Jobs get one gang each, the Job controller's when they ask for it, else workload-map's") {
  start_scheduler("native");
  const std::string pool = node_pool("job-native");
  add_nodes(pool, 2, 4);
  const std::string ns = make_namespace("job-native", true);
  RegisteredWebhook webhook(policy_for(ns, "native", ""), "base", cluster_side_args("job-native"));
  const Cluster& cluster = Cluster::get();
  auto groups_of = [&](const std::string& selector) {
    CommandResult r = cluster.kubectl({"get", "pods", "-n", ns, "-l", selector, "-o",
                                       "jsonpath={range .items[*]}{.spec.schedulingGroup.podGroupName}{\"\\n\"}{end}"});
    REQUIRE(r.status == 0);
    return r.out;
  };
  auto workloads_by = [&](const std::string& owner_kind) {
    CommandResult r = cluster.kubectl({"get", "workloads.scheduling.k8s.io", "-n", ns, "-o",
                                       "jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/"
                                       "{.metadata.ownerReferences[0].name} {.metadata.labels.app\\.kubernetes\\.io/"
                                       "managed-by}{\"\\n\"}{end}"});
    REQUIRE(r.status == 0);
    std::string out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(owner_kind, 0) == 0) out += line + "\n";
    return out;
  };
  kubectl_apply(ns, R"(apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {workload-map.io/node-pool: )" +
                        pool + R"(}
      containers: [{name: c, image: registry.example/c:1}]
)");
  const std::string plain = "batch.kubernetes.io/job-name=plain";
  REQUIRE(eventually([&] { return count_pods(ns, plain).total == 2; }, 60s, 500ms));
  CHECK(groups_of(plain) == "plain\nplain\n");
  CHECK(eventually([&] { return workloads_by("Job/plain") == "Job/plain workload-map\n"; }, 30s, 500ms));
  CHECK(stays([&] { return workloads_by("Job/plain") == "Job/plain workload-map\n"; }, 5s));
  kubectl_apply(ns, R"(apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  parallelism: 3
  completions: 3
  scheduling:
    schedulingPolicy:
      gang: {minCount: 3}
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {workload-map.io/node-pool: )" +
                        pool + R"(}
      containers: [{name: pi, image: registry.example/pi:1, resources: {limits: {nvidia.com/gpu: 4}}}]
)");
  const std::string pods = "batch.kubernetes.io/job-name=pi";
  REQUIRE(eventually([&] { return count_pods(ns, pods).total == 3; }, 60s, 500ms));
  {
    INFO(describe(ns));
    CHECK(stays([&] { return count_pods(ns, pods).bound == 0; }, 15s));
  }
  // The pods are in the Job controller's PodGroup, which the Job controls; none of them carries workload-map's name.
  const std::string groups = groups_of(pods);
  const std::string first = groups.substr(0, groups.find('\n'));
  CHECK_FALSE(first.empty());
  CHECK(first != "pi");
  CHECK(groups == first + "\n" + first + "\n" + first + "\n");
  CHECK(workloads_by("Job/pi") == "Job/pi \n");  // the Job controller's only
  simdjson::dom::parser parser;
  const simdjson::dom::element group = native_object(parser, "podgroups.scheduling.k8s.io", ns, first);
  CHECK(string_at(group, "/metadata/ownerReferences/0/kind") == "Job");
  int64_t min = 0;
  CHECK(group.at_pointer("/spec/schedulingPolicy/gang/minCount").get_int64().get(min) == simdjson::SUCCESS);
  CHECK(min == 3);
  CommandResult ours = cluster.kubectl({"get", "podgroups.scheduling.k8s.io,workloads.scheduling.k8s.io", "-n", ns,
                                        "-l", "workload-map.io/owner-uid", "-o", "name"});
  REQUIRE(ours.status == 0);
  CHECK(ours.out.find("/pi\n") == std::string::npos);
  add_nodes(pool, 1, 4);
  const bool all_bound = eventually([&] { return count_pods(ns, pods).bound == 3; }, 60s, 500ms);
  INFO(describe(ns));
  CHECK(all_bound);
}

// JobSet's workload-aware scheduling guide (kubernetes-sigs/jobset site/content/en/docs/workload-aware-scheduling): the
// user makes the Workload and the PodGroup and names the PodGroup in the JobSet's template. The native profile's
// override (whenPodSpecHas: /schedulingGroup) hands the JobSet off: workload-map makes no second Workload or PodGroup,
// its pods are in the user's PodGroup, and kube-scheduler runs that gang.
TEST_CASE("native: a JobSet that brought its own Workload and PodGroup gets no second gang, and its own binds") {
  start_scheduler("native");
  const std::string pool = node_pool("own-native");
  add_nodes(pool, 3, 4);
  const std::string ns = make_namespace("own-native", true);
  RegisteredWebhook webhook(policy_for(ns, "native", ""), "base", cluster_side_args("own-native"));
  const Cluster& cluster = Cluster::get();
  kubectl_apply(ns, R"(apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: js-own}
spec:
  controllerRef: {apiGroup: jobset.x-k8s.io, kind: JobSet, name: js-own}
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 3}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: js-own-workers}
spec:
  workloadRef: {workloadName: js-own, templateName: workers}
  schedulingPolicy: {gang: {minCount: 3}}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js-own}
spec:
  replicatedJobs:
  - name: workers
    replicas: 1
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          spec:
            schedulingGroup: {podGroupName: js-own-workers}
            restartPolicy: Never
            nodeSelector: {workload-map.io/node-pool: )" +
                        pool + R"(}
            containers: [{name: c, image: registry.example/c:1, resources: {limits: {nvidia.com/gpu: 4}}}]
)");
  const std::string pods = std::string(kJobSetPods) + "js-own";
  const bool all_bound = eventually([&] { return count_pods(ns, pods).bound == 3; }, 90s, 500ms);
  INFO(describe(ns));
  CHECK(all_bound);
  CommandResult groups = cluster.kubectl({"get", "pods", "-n", ns, "-l", pods, "-o",
                                          "jsonpath={range .items[*]}{.spec.schedulingGroup.podGroupName} "
                                          "{.metadata.annotations.workload-map\\.io/pod-group}{\"\\n\"}{end}"});
  REQUIRE(groups.status == 0);
  // The bed's JobSet controller (v0.10.1, k8s.io/api v0.34) drops spec.schedulingGroup from the Jobs it makes: the
  // annotation naming the template's own PodGroup gets each pod into it again.
  CHECK(groups.out == "js-own-workers js-own-workers\njs-own-workers js-own-workers\njs-own-workers js-own-workers\n");
  // Nothing of workload-map's beside the user's (the cluster side would have made its objects by now).
  CHECK(stays(
      [&] {
        CommandResult ours = cluster.kubectl({"get", "podgroups.scheduling.k8s.io,workloads.scheduling.k8s.io", "-n",
                                              ns, "-l", "app.kubernetes.io/managed-by=workload-map", "-o", "name"});
        return ours.status == 0 && ours.out.empty();
      },
      5s));
}

TEST_CASE("coscheduling: two 12-GPU gangs on 16 GPUs never deadlock") { gangs_never_deadlock("coscheduling"); }
TEST_CASE("volcano: two 12-GPU gangs on 16 GPUs never deadlock") { gangs_never_deadlock("volcano"); }
TEST_CASE("yunikorn: two 12-GPU gangs on 16 GPUs never deadlock") { gangs_never_deadlock("yunikorn"); }
TEST_CASE("kai: two 12-GPU gangs on 16 GPUs never deadlock") { gangs_never_deadlock("kai"); }
TEST_CASE("native: two 12-GPU gangs on 16 GPUs never deadlock") { gangs_never_deadlock("native"); }

TEST_CASE("volcano: a LeaderWorkerSet binds whole groups only and as many as fit") {
  lws_binds_whole_groups("volcano");
}
TEST_CASE("coscheduling: a LeaderWorkerSet binds whole groups only and as many as fit") {
  lws_binds_whole_groups("coscheduling");
}
TEST_CASE("kai: a LeaderWorkerSet binds whole groups only and as many as fit") { lws_binds_whole_groups("kai"); }
TEST_CASE("native: a LeaderWorkerSet binds whole groups only and as many as fit") { lws_binds_whole_groups("native"); }
TEST_CASE("yunikorn: a LeaderWorkerSet binds whole groups only and as many as fit") {
  lws_binds_whole_groups("yunikorn");
}

// Minimums with the operator that makes the gang: KubeRay's Volcano integration (tests/cluster/operators/kuberay)
// makes a RayCluster's PodGroup itself, and the volcano profile hands it over (policy.yaml). A worker group of 4 x 4
// GPUs with minReplicas 2 on 12 GPUs:
// - with autoscaling, KubeRay's minMember is the head and the minimum, 3: Volcano starts them (and a third worker
//   where it fits), not all-or-nothing of the 5 pods;
// - without, it is the head and every desired worker, 5, which 12 GPUs never hold: nothing starts (KAI's grouper
//   would have counted 3 here).
// Either way KubeRay's PodGroup says what `inspect --profile volcano` says.
namespace {

std::string ray_cluster(const std::string& name, const std::string& pool, bool autoscaling) {
  const std::string pod_pool = "        nodeSelector: {workload-map.io/node-pool: " + pool + "}\n";
  return "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: " + name + "}\nspec:\n" +
         (autoscaling ? "  enableInTreeAutoscaling: true\n" : "") +
         "  headGroupSpec:\n    rayStartParams: {}\n    template:\n      spec:\n" + pod_pool +
         "        containers: [{name: ray-head, image: rayproject/ray:2.41.0, resources: {requests: {cpu: \"1\"}}}]\n"
         "  workerGroupSpecs:\n  - groupName: gpu\n    replicas: 4\n    minReplicas: 2\n    maxReplicas: 4\n"
         "    rayStartParams: {}\n    template:\n      spec:\n" +
         pod_pool +
         "        containers: [{name: ray-worker, image: rayproject/ray:2.41.0, resources: {limits: {nvidia.com/gpu: "
         "4}}}]\n";
}

long long kuberay_min_member(const std::string& ns, const std::string& cluster) {
  CommandResult r = Cluster::get().kubectl({"get", "podgroups.scheduling.volcano.sh", "ray-" + cluster + "-pg", "-n",
                                            ns, "-o", "jsonpath={.spec.minMember}"});
  return r.status == 0 && !r.out.empty() ? std::stoll(r.out) : -1;
}

void ray_minimum_under_volcano(bool autoscaling) {
  start_scheduler("volcano");
  start_operator("kuberay");
  const std::string label = autoscaling ? "ray-min" : "ray-desired";
  const std::string pool = node_pool(label);
  add_nodes(pool, 3, 4);
  const std::string ns = make_namespace(label, true);
  RegisteredWebhook webhook(policy_for(ns, "volcano"), "base", cluster_side_args(label));
  const std::string yaml = ray_cluster("ray", pool, autoscaling);
  const long long expected = profile_min_member(yaml, "volcano");
  CHECK(expected == (autoscaling ? 3 : 5));
  kubectl_apply(ns, yaml);
  long long made = -1;
  const bool has_pod_group = eventually([&] { return (made = kuberay_min_member(ns, "ray")) >= 0; }, 60s, 500ms);
  INFO(describe(ns));
  REQUIRE(has_pod_group);
  CHECK(made == expected);  // KubeRay's PodGroup and the profile's view agree
  const std::string pods = "ray.io/cluster=ray";
  REQUIRE(eventually([&] { return count_pods(ns, pods).total == 5; }, 60s, 500ms));
  if (autoscaling) {
    // Head and the two minimum workers at least, and a third worker where the GPUs allow: 4 of 5.
    CHECK(eventually([&] { return count_pods(ns, pods).bound == 4; }, 60s, 500ms));
    CHECK(count_pods(ns, "ray.io/cluster=ray,ray.io/node-type=head").bound == 1);
    CHECK(stays([&] { return count_pods(ns, pods).bound == 4; }, 5s));
  } else {
    CHECK(stays([&] { return count_pods(ns, pods).bound == 0; }, 10s));
  }
}

}  // namespace

TEST_CASE("volcano: KubeRay's PodGroup for an autoscaled RayCluster asks for the head and minReplicas, which start") {
  ray_minimum_under_volcano(true);
}
TEST_CASE("volcano: KubeRay's PodGroup for a RayCluster without autoscaling asks for every desired worker") {
  ray_minimum_under_volcano(false);
}

// Minimums of a gang this project makes: a Kubeflow training job run by the training-operator
// (tests/cluster/operators/training-operator), one lead replica (PyTorchJob's, XGBoostJob's and PaddleJob's Master,
// TFJob's PS) and 3 workers of 4 GPUs each, with runPolicy.schedulingPolicy.minAvailable 2, on 8 GPUs. The profile's
// gang asks for 2 (KAI's rule, which the training-operator's own Volcano integration shares: minMember = minAvailable),
// and the scheduler starts 2 pods, not all-or-nothing of the 4. Volcano also holds each task's share (minTaskMember:
// the lead and one worker): it never starts two workers without their lead. Coscheduling counts pods only, and so, in
// effect, does YuniKorn: its task groups (Master 1, Worker 1) hold placeholders, but a worker beyond its group's
// share was seen to take the lead's place (2 workers bound, the master pending; once in 4 runs), so only the count
// is checked there (docs/gangs.md).
namespace {

struct TrainingJob {
  std::string kind, replica_specs, container, lead;
};
const TrainingJob kTrainingJobs[] = {{"PyTorchJob", "pytorchReplicaSpecs", "pytorch", "Master"},
                                     {"TFJob", "tfReplicaSpecs", "tensorflow", "PS"},
                                     {"XGBoostJob", "xgbReplicaSpecs", "xgboost", "Master"},
                                     {"PaddleJob", "paddleReplicaSpecs", "paddle", "Master"}};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// One kind's job, in a pool of 2 nodes of 4 GPUs and a namespace of its own.
struct TrainingRun {
  const TrainingJob& job;
  std::string pool, ns, yaml;
  std::string pods() const { return "training.kubeflow.org/job-name=train"; }
  std::string lead() const { return pods() + ",training.kubeflow.org/replica-type=" + lower(job.lead); }
};

TrainingRun training_run(const std::string& profile, const TrainingJob& job) {
  const std::string label = lower("min-" + job.kind + "-" + profile);
  TrainingRun run{job, node_pool(label), "", ""};
  add_nodes(run.pool, 2, 4);
  run.ns = make_namespace(label, true);
  const std::string pod = "        spec:\n          nodeSelector: {workload-map.io/node-pool: " + run.pool +
                          "}\n          containers: [{name: " + job.container +
                          ", image: registry.example/train:1, resources: {limits: {nvidia.com/gpu: 4}}}]\n";
  run.yaml = "apiVersion: kubeflow.org/v1\nkind: " + job.kind +
             "\nmetadata: {name: train}\nspec:\n  runPolicy: {schedulingPolicy: {minAvailable: 2}}\n  " +
             job.replica_specs + ":\n    " + job.lead + ":\n      replicas: 1\n      template:\n" + pod +
             "    Worker:\n      replicas: 3\n      template:\n" + pod;
  CHECK(profile_min_member(run.yaml, profile) == 2);
  return run;
}

void training_minimum_started(const std::string& profile, const TrainingRun& run) {
  INFO(run.job.kind);
  const std::string& ns = run.ns;
  REQUIRE(eventually([&] { return count_pods(ns, run.pods()).total == 4; }, 60s, 500ms));
  const bool minimum_bound = eventually([&] { return count_pods(ns, run.pods()).bound == 2; }, 60s, 500ms);
  INFO(describe(ns));
  REQUIRE(minimum_bound);
  if (profile == "volcano") CHECK(count_pods(ns, run.lead()).bound == 1);
  const Cluster& cluster = Cluster::get();
  if (profile == "native") {  // kube-scheduler's own gang: every pod the operator made joined the job's PodGroup
    CHECK(cluster
              .kubectl({"get", "pods", "-n", ns, "-l", run.pods(), "-o",
                        "jsonpath={.items[*].spec.schedulingGroup.podGroupName}"})
              .out == "train train train train");
    return;
  }
  // The webhook's edit reached every pod: the stored job's templates name the profile's scheduler, and so do the
  // pods the operator made from them.
  const std::string stored =
      cluster
          .kubectl({"get", lower(run.job.kind), "train", "-n", ns, "-o",
                    "jsonpath={.spec." + run.job.replica_specs + ".Worker.template.spec.schedulerName}"})
          .out;
  CHECK(!stored.empty());
  CHECK(stored != "default-scheduler");
  CHECK(cluster.kubectl({"get", "pods", "-n", ns, "-l", run.pods(), "-o", "jsonpath={.items[*].spec.schedulerName}"})
            .out == stored + " " + stored + " " + stored + " " + stored);
}

// The four kinds side by side, each in its own pool and namespace, under one webhook: their waits overlap.
void training_minimum_starts(const std::string& profile) {
  start_scheduler(profile);
  start_operator("training-operator");
  std::vector<TrainingRun> runs;
  for (const auto& job : kTrainingJobs) runs.push_back(training_run(profile, job));
  std::string policy = policy_for(runs.front().ns, profile, bed_queue(profile)), namespaces;
  for (const auto& run : runs) namespaces += (namespaces.empty() ? "\"" : ", \"") + run.ns + "\"";
  const std::string one = "namespaces: [\"" + runs.front().ns + "\"]";
  policy.replace(policy.find(one), one.size(), "namespaces: [" + namespaces + "]");
  RegisteredWebhook webhook(policy, "base", cluster_side_args("min-training-" + profile));
  for (const auto& run : runs) kubectl_apply(run.ns, run.yaml);
  for (const auto& run : runs) training_minimum_started(profile, run);
  // And none starts more than its minimum a while later.
  CHECK(stays(
      [&] {
        return std::all_of(runs.begin(), runs.end(),
                           [](const TrainingRun& run) { return count_pods(run.ns, run.pods()).bound == 2; });
      },
      5s));
}

}  // namespace

TEST_CASE("volcano: a Kubeflow training job's minAvailable starts its lead and the minimum of workers") {
  training_minimum_starts("volcano");
}
TEST_CASE("coscheduling: a Kubeflow training job's minAvailable starts its minimum of pods") {
  training_minimum_starts("coscheduling");
}
TEST_CASE("kai: a Kubeflow training job's minAvailable starts its minimum of pods") { training_minimum_starts("kai"); }
TEST_CASE("yunikorn: a Kubeflow training job's minAvailable starts its minimum of pods") {
  training_minimum_starts("yunikorn");
}
TEST_CASE("native: a Kubeflow training job's minAvailable starts its minimum of pods") {
  training_minimum_starts("native");
}

// A Volcano Job of a ps and 4 workers of 4 GPUs each with minAvailable 3, on 12 GPUs. Volcano's own job controller
// (vc-controller-manager in the bed) makes its PodGroup, minMember 3, and names it on the pods; the volcano profile
// hands off to it and makes none of its own (manifests/base/policy.yaml). Volcano starts the 3, not all-or-nothing
// of the 5, and `inspect --profile volcano` says 3.
TEST_CASE("volcano: a Volcano Job starts its minAvailable, in the one PodGroup Volcano's job controller makes") {
  start_scheduler("volcano");
  const std::string pool = node_pool("vcjob");
  add_nodes(pool, 3, 4);
  const std::string ns = make_namespace("vcjob", true);
  RegisteredWebhook webhook(policy_for(ns, "volcano"), "base", cluster_side_args("vcjob"));
  const std::string pod =
      "    template:\n      spec:\n        restartPolicy: OnFailure\n"
      "        nodeSelector: {workload-map.io/node-pool: " +
      pool +
      "}\n        containers: [{name: train, image: registry.example/train:1, resources: "
      "{limits: {nvidia.com/gpu: 4}}}]\n";
  const std::string yaml =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: train}\nspec:\n  minAvailable: 3\n"
      "  queue: default\n  maxRetry: 3\n  tasks:\n  - name: ps\n    replicas: 1\n" +
      pod + "  - name: worker\n    replicas: 4\n" + pod;
  CHECK(profile_min_member(yaml, "volcano") == 3);
  kubectl_apply(ns, yaml);
  const std::string pods = "volcano.sh/job-name=train";
  REQUIRE(eventually([&] { return count_pods(ns, pods).total == 5; }, 60s, 500ms));
  const bool minimum_bound = eventually([&] { return count_pods(ns, pods).bound == 3; }, 60s, 500ms);
  INFO(describe(ns));
  REQUIRE(minimum_bound);
  CHECK(stays([&] { return count_pods(ns, pods).bound == 3; }, 5s));
  const Cluster& cluster = Cluster::get();
  // One PodGroup, Volcano's, owned by the job: none from the profile.
  CHECK(cluster
            .kubectl({"get", "podgroups.scheduling.volcano.sh", "-n", ns, "-o",
                      "jsonpath={range .items[*]}{.spec.minMember}/{.metadata.ownerReferences[0].kind} {end}"})
            .out == "3/Job ");
  // The pods name Volcano's PodGroup and the profile's scheduler, which the webhook wrote into the tasks' templates.
  CHECK(cluster.kubectl({"get", "pods", "-n", ns, "-l", pods, "-o", "jsonpath={.items[*].spec.schedulerName}"}).out ==
        "volcano volcano volcano volcano volcano");
}
