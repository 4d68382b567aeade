// Gangs as the schedulers compute them, for the rules the catalog's definitions encode. Each case is built
// after a rule in the upstream grouping code it cites, and checked under both gang rules where they differ.
#include "mapper/view/gangs.h"

#include <catch2/catch.hpp>

#include "mapper/catalog/definition_loader.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"
#include "policy/profile_choice.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

struct Gang {
  std::string name;
  long long min_member;
  std::vector<std::pair<std::string, long long>> sub_groups;
  std::optional<long long> min_sub_groups = std::nullopt;  // none: every sub-group
  bool operator==(const Gang&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Gang& g) {
  out << g.name << ":" << g.min_member << "[";
  for (const auto& [n, m] : g.sub_groups) out << n << ":" << m << " ";
  out << "]";
  if (g.min_sub_groups) out << " minSubGroups " << *g.min_sub_groups;
  return out;
}

// `yaml` with its first `mark` (a %NAME% placeholder) replaced by `value`.
std::string filled(std::string yaml, const std::string& mark, const std::string& value) {
  yaml.replace(yaml.find(mark), mark.size(), value);
  return yaml;
}

std::vector<Gang> gangs_of(const std::string& yaml, view::GangRule rule = view::GangRule::Minimum) {
  auto objects = test::parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::ViewOptions options;
  options.gang_rule = rule;
  options.inspect_detail = true;  // as inspect shows them
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc, options);
  INFO(view.problems.size() << " warnings" << (view.problems.empty() ? "" : ": " + view.problems[0]));
  REQUIRE(view.problems.empty());
  std::vector<Gang> out;
  for (const auto& g : view::expanded_gangs(view.gangs, 100)) {
    Gang one{g.name, g.min_member, {}, g.min_sub_groups};
    for (const auto& s : g.sub_groups) one.sub_groups.emplace_back(s.name, s.min_member);
    out.push_back(std::move(one));
  }
  return out;
}

const char* kRayCluster = R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc}
spec:
  %AUTOSCALING%
  headGroupSpec: {template: {spec: {containers: [{name: head, image: ray}]}}}
  workerGroupSpecs:
  - groupName: tpu
    replicas: 2
    minReplicas: 1
    numOfHosts: 2
    template: {spec: {containers: [{name: w, image: ray}]}}
  - groupName: cpu
    replicas: 3
    template: {spec: {containers: [{name: w, image: ray}]}}
  - groupName: idle
    replicas: 4
    suspended: true
    template: {spec: {containers: [{name: w, image: ray}]}}
)";

std::string ray_cluster(bool autoscaling) {
  return filled(kRayCluster, "%AUTOSCALING%", autoscaling ? "enableInTreeAutoscaling: true" : "");
}

}  // namespace

// KAI pkg/podgrouper/podgrouper/plugins/ray/ray_grouper.go, calcJobNumOfPodsAndSubGroups: the head, then per worker
// group minReplicas x numOfHosts with autoscaling or a minReplicas, else replicas x numOfHosts; suspended groups count
// nothing.
TEST_CASE("RayCluster under KAI: head + minReplicas x numOfHosts, desired replicas without autoscaling") {
  // A suspended group starts no pods, so it is no sub-group.
  auto gangs = gangs_of(ray_cluster(false));
  REQUIRE(gangs.size() == 1);
  CHECK(gangs[0] == Gang{"cluster", 1 + 2 + 3, {{"head", 1}, {"tpu", 2}, {"cpu", 3}}});
}

TEST_CASE("RayCluster under KAI with autoscaling: a group without minReplicas adds nothing") {
  auto gangs = gangs_of(ray_cluster(true));
  REQUIRE(gangs.size() == 1);
  CHECK(gangs[0] == Gang{"cluster", 1 + 2, {{"head", 1}, {"tpu", 2}, {"cpu", 0}}});
}

// Kueue pkg/controller/jobs/raycluster: one pod set for the head and one per worker group, each counting its
// replicas x numOfHosts; the whole workload is admitted at once.
TEST_CASE("RayCluster under Kueue's rule: every pod") {
  auto gangs = gangs_of(ray_cluster(true), view::GangRule::AllPods);
  REQUIRE(gangs.size() == 1);
  CHECK(gangs[0].min_member == 1 + 4 + 3);
}

const char* kJobSet = R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  %ORDER%
  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {containers: [{name: d, image: x}]}}}}
  - name: workers
    replicas: 2
    template: {spec: {parallelism: 4, completions: 3, template: {spec: {containers: [{name: w, image: x}]}}}}
)";

std::string job_set(const std::string& order) {
  return filled(kJobSet, "%ORDER%", order.empty() ? "" : "startupPolicy: {startupPolicyOrder: " + order + "}");
}

// KAI pkg/podgrouper/podgrouper/plugins/jobset/jobset_grouper.go: a sub-group per replicated job; minSubGroup is every
// replicated job for AnyOrder and 1 for InOrder. Kueue pkg/controller/jobs/jobset: podsCountPerReplica is
// min(parallelism, completions). A sub-group's own minimum is KAI's, replicas x parallelism: KAI does not read
// completions, so these workers (parallelism 4, completions 3) need 8 of their 6 pods under KAI.
TEST_CASE("JobSet: a sub-group per replicated job, pods per Job min(parallelism, completions)") {
  for (const char* order : {"", "AnyOrder"}) {
    auto gangs = gangs_of(job_set(order));
    REQUIRE(gangs.size() == 1);
    CHECK(gangs[0] == Gang{"jobset", 1 + 2 * 3, {{"driver", 1}, {"workers", 8}}});
  }
}

// InOrder: the gang starts with its first job (minSubGroups 1), and the workers, created once the driver is ready,
// are a sub-group whole in itself: KAI's worker sub-group needs all of its pods, never 0.
TEST_CASE("JobSet InOrder: only the first replicated job must start together while Kueue still admits all") {
  auto gangs = gangs_of(job_set("InOrder"));
  REQUIRE(gangs.size() == 1);
  CHECK(gangs[0] == Gang{"jobset", 1, {{"driver", 1}, {"workers", 8}}, 1});
  CHECK(gangs_of(job_set("InOrder"), view::GangRule::AllPods)[0].min_member == 7);
}

const char* kLws = R"(
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  replicas: 3
  %POLICY%
  leaderWorkerTemplate:
    size: 4
    workerTemplate: {spec: {containers: [{name: w, image: x}]}}
)";

std::string lws(const std::string& policy) {
  return filled(kLws, "%POLICY%", policy.empty() ? "" : "startupPolicy: " + policy);
}

// KAI pkg/podgrouper/podgrouper/plugins/leaderworkerset/lws_grouper.go: a PodGroup per group
// (<name>-group-<index>), minAvailable the group's size with LeaderCreated, 1 (the leader) with LeaderReady.
TEST_CASE("LeaderWorkerSet: a gang per group of the group's size, the leader alone with LeaderReady") {
  auto created = gangs_of(lws(""));
  REQUIRE(created.size() == 3);
  CHECK(created[0] == Gang{"group-0", 4, {}});
  CHECK(created[2] == Gang{"group-2", 4, {}});
  CHECK(gangs_of(lws("LeaderCreated"))[1].min_member == 4);
  auto ready = gangs_of(lws("LeaderReady"));
  REQUIRE(ready.size() == 3);
  CHECK(ready[1].min_member == 1);
  // Kueue's LWS integration admits each group as a workload of its own, whole.
  CHECK(gangs_of(lws("LeaderReady"), view::GangRule::AllPods)[1].min_member == 4);
}

// KAI pkg/podgrouper/podgrouper/plugins/job/job_grouper.go: a Job's PodGroup has minAvailable 1 unless the
// kai.scheduler/batch-min-member annotation says otherwise.
TEST_CASE("Job: not a gang unless the batch-min-member annotation asks") {
  const std::string job = R"(
apiVersion: batch/v1
kind: Job
metadata: {name: j%ANNOTATION%}
spec:
  parallelism: 5
  completions: 3
  template: {spec: {containers: [{name: c, image: x}]}}
)";
  std::string plain = job, annotated = job;
  plain.replace(plain.find("%ANNOTATION%"), 12, "");
  annotated.replace(annotated.find("%ANNOTATION%"), 12, ", annotations: {kai.scheduler/batch-min-member: \"2\"}");
  CHECK(gangs_of(plain)[0].min_member == 1);
  CHECK(gangs_of(annotated)[0].min_member == 2);
  CHECK(gangs_of(plain, view::GangRule::AllPods)[0].min_member == 3);  // min(parallelism, completions)
}

// KAI pkg/podgrouper/podgrouper/plugins/kubeflow/pytorch/pytorch_grouper.go: the job's minimum is
// runPolicy.schedulingPolicy.minAvailable, else elasticPolicy.minReplicas, else every pod; the master sub-group is
// the masters, the workers' is the rest.
TEST_CASE("PyTorchJob: schedulingPolicy.minAvailable, else elasticPolicy.minReplicas, is the whole job's minimum") {
  const std::string job = R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: elastic}
spec:
  %POLICY%
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: x}]}}}
    Worker: {replicas: 6, template: {spec: {containers: [{name: pytorch, image: x}]}}}
)";
  auto with = [&](const std::string& policy) { return gangs_of(filled(job, "%POLICY%", policy)).at(0).min_member; };
  CHECK(with("") == 7);
  CHECK(with("elasticPolicy: {minReplicas: 3, maxReplicas: 8}") == 3);
  CHECK(with("elasticPolicy: {minReplicas: 3}\n  runPolicy: {schedulingPolicy: {minAvailable: 5}}") == 5);
  CHECK(with("runPolicy: {schedulingPolicy: {minAvailable: 4}}") == 4);
}

// KAI copies minAvailable unchecked (pytorch_grouper.go: podGroupMetadata.MinAvailable = minAvailable; the worker
// sub-group is max(0, minAvailable - masters)), so a PyTorchJob of 6 pods with minAvailable 33 is a gang of 33 that
// never starts. The gang says so, with both numbers, instead of hiding it behind a gang of 6.
TEST_CASE("PyTorchJob: a minAvailable past the pods is the scheduler's minimum, and the gang is unmeetable") {
  auto objects = test::parse_yaml(R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: never}
spec:
  runPolicy: {schedulingPolicy: {minAvailable: 33}}
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: x}]}}}
    Worker: {replicas: 5, template: {spec: {containers: [{name: pytorch, image: x}]}}}
)");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  auto gangs_under = [&](view::GangRule rule) {
    view::ViewOptions options;
    options.gang_rule = rule;
    return view::build_view(*match.definition, *objects[0].doc, options).gangs;
  };
  auto gangs = gangs_under(view::GangRule::Minimum);
  REQUIRE(gangs.size() == 1);
  CHECK(gangs[0].min_member == 33);
  CHECK(gangs[0].pods == 6);
  auto why = view::unmeetable_gangs(gangs);
  REQUIRE(why.size() == 1);
  CHECK(why[0] == "gang \"" + gangs[0].name + "\" needs 33 pods placed at once but starts 6");
  // Kueue admits every pod: a gang of 6.
  auto all_pods = gangs_under(view::GangRule::AllPods);
  CHECK(all_pods[0].min_member == 6);
  CHECK(view::unmeetable_gangs(all_pods).empty());
}

// KAI pkg/podgrouper/podgrouper/plugins/kubeflow/distributed_common.go (TFJob, XGBoostJob, JAXJob, MPIJob v1): the
// job's minimum is runPolicy.schedulingPolicy.minAvailable as is, else every replica of every type; the
// training-operator's own PodGroup has the same minMember (pkg/controller.v1/common/job.go), the rule for PaddleJob,
// which KAI has no grouper for. Cases after distributed_common_test.go: Master 2 + Worker 4 is 6; minAvailable 5 is 5
// whatever the replicas (RunPolicy); Workers alone are their count (NoMastersAllowed).
TEST_CASE("Kubeflow v1 jobs: schedulingPolicy.minAvailable as is, else every pod (KAI's distributed grouper)") {
  auto job = [](const std::string& kind, const std::string& key, const std::string& policy, const std::string& specs) {
    return "apiVersion: kubeflow.org/v1\nkind: " + kind + "\nmetadata: {name: j}\nspec:\n" + policy + "  " + key +
           ":\n" + specs;
  };
  const std::string pod = "template: {spec: {containers: [{name: c, image: x}]}}";
  const std::string master_workers = "    Master: {replicas: 2, " + pod + "}\n    Worker: {replicas: 4, " + pod + "}\n";
  for (const auto& [kind, key] : std::vector<std::pair<std::string, std::string>>{
           {"TFJob", "tfReplicaSpecs"}, {"XGBoostJob", "xgbReplicaSpecs"}, {"PaddleJob", "paddleReplicaSpecs"}}) {
    INFO(kind);
    CHECK(gangs_of(job(kind, key, "", master_workers)).at(0).min_member == 6);
    CHECK(gangs_of(job(kind, key, "  runPolicy: {schedulingPolicy: {minAvailable: 5}}\n", master_workers))
              .at(0)
              .min_member == 5);
    CHECK(gangs_of(job(kind, key, "", "    Worker: {replicas: 2, " + pod + "}\n")).at(0).min_member == 2);
    CHECK(gangs_of(job(kind, key, "", "    Master: {" + pod + "}\n    Worker: {replicas: 2, " + pod + "}\n"))
              .at(0)
              .min_member == 3);  // replicas defaults to 1 (SetDefaults_*)
  }
  // The minimum is taken as is, below the types that are not workers and past all the pods: it is shared out so
  // that the shares add up to it (the view's gang is the sum of its members' minimums).
  const std::string tf =
      "    Chief: {" + pod + "}\n    PS: {replicas: 2, " + pod + "}\n    Worker: {replicas: 4, " + pod + "}\n";
  for (long long minimum : {1, 2, 3, 7, 10}) {
    INFO(minimum);
    CHECK(gangs_of(job("TFJob", "tfReplicaSpecs",
                       "  runPolicy: {schedulingPolicy: {minAvailable: " + std::to_string(minimum) + "}}\n", tf))
              .at(0)
              .min_member == minimum);
  }
  // JAXJob: Workers only (KAI's JAX grouper names no master).
  CHECK(gangs_of(job("JAXJob", "jaxReplicaSpecs", "", "    Worker: {replicas: 3, " + pod + "}\n")).at(0).min_member ==
        3);
  CHECK(gangs_of(job("JAXJob", "jaxReplicaSpecs", "  runPolicy: {schedulingPolicy: {minAvailable: 5}}\n",
                     "    Worker: {replicas: 3, " + pod + "}\n"))
            .at(0)
            .min_member == 5);
  // MPIJob v1: one Launcher and Workers, which default to 0 (SetDefaults_MPIJob).
  const std::string mpi = "    Launcher: {" + pod + "}\n    Worker: {replicas: 4, " + pod + "}\n";
  CHECK(gangs_of(job("MPIJob", "mpiReplicaSpecs", "", mpi)).at(0).min_member == 5);
  CHECK(gangs_of(job("MPIJob", "mpiReplicaSpecs", "", "    Launcher: {" + pod + "}\n    Worker: {" + pod + "}\n"))
            .at(0)
            .min_member == 1);
  for (long long minimum : {1, 3, 9}) {
    INFO("MPIJob " << minimum);
    CHECK(gangs_of(job("MPIJob", "mpiReplicaSpecs",
                       "  runPolicy: {schedulingPolicy: {minAvailable: " + std::to_string(minimum) + "}}\n", mpi))
              .at(0)
              .min_member == minimum);
  }
}

// KAI pkg/podgrouper/podgrouper/plugins/kubeflow/mpi/mpi-grouper.go: with launcherCreationPolicy WaitForWorkersReady
// the launcher is not in the gang until it exists (never at admission).
TEST_CASE("MPIJob: the launcher is left out of the gang when it waits for the workers") {
  const std::string job = R"(
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi}
spec:
  %POLICY%
  mpiReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: l, image: x}]}}}
    Worker: {replicas: 4, template: {spec: {containers: [{name: w, image: x}]}}}
)";
  auto with = [&](const std::string& policy) { return gangs_of(filled(job, "%POLICY%", policy)).at(0).min_member; };
  CHECK(with("") == 5);
  CHECK(with("launcherCreationPolicy: AtStartup") == 5);
  CHECK(with("launcherCreationPolicy: WaitForWorkersReady") == 4);
  CHECK(with("runPolicy: {schedulingPolicy: {minAvailable: 3}}") == 3);
  CHECK(with("launcherCreationPolicy: WaitForWorkersReady\n  runPolicy: {schedulingPolicy: {minAvailable: 3}}") == 2);
}

// Grove: a PodGang per PodCliqueSet replica, holding each clique's minAvailable (default: its replicas) and, for a
// scaling group, minAvailable of its replicas (default 1); the replicas past that are gangs of their own. KAI's Grove
// grouper (pkg/podgrouper/podgrouper/plugins/grove) schedules the PodGangs Grove makes.
TEST_CASE("PodCliqueSet: a gang per replica, with the cliques' and scaling groups' minAvailable") {
  auto gangs = gangs_of(R"(
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {name: serve}
spec:
  replicas: 2
  template:
    cliques:
    - name: router
      spec: {replicas: 3, minAvailable: 1, podSpec: {containers: [{name: r, image: x}]}}
    - name: leader
      spec: {replicas: 1, podSpec: {containers: [{name: l, image: x}]}}
    - name: worker
      spec: {replicas: 4, podSpec: {containers: [{name: w, image: x}]}}
    podCliqueScalingGroups:
    - name: model
      cliqueNames: [leader, worker]
      replicas: 3
      minAvailable: 2
)");
  // The base gang of each replica, then Grove's scaled PodGangs: the scaling group's third replica (above its
  // minAvailable of 2), in each of the 2 replicas, at its cliques' minAvailable.
  REQUIRE(gangs.size() == 4);
  CHECK(gangs[0] == Gang{"podcliqueset-replica-0", 1 + 2 * (1 + 4), {}});
  CHECK(gangs[1] == Gang{"podcliqueset-replica-1", 1 + 2 * (1 + 4), {}});
  CHECK(gangs[2] == Gang{"model-scaled-0", 1 + 4, {}});
  CHECK(gangs[3] == Gang{"model-scaled-1", 1 + 4, {}});
}

// Grove docs/designs/gang-scheduling-semantics.md, its example: a scaling group of replicas 5 and minAvailable 3
// puts replicas 0-2 in the base PodGang and makes one scaled PodGang for each of replicas 3 and 4.
TEST_CASE("Grove's gang semantics: standalone cliques and the first minAvailable group replicas in the base gang") {
  auto gangs = gangs_of(R"(
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {name: my-pcs}
spec:
  replicas: 1
  template:
    cliques:
    - name: frontend
      spec: {replicas: 2, podSpec: {containers: [{name: f, image: x}]}}
    - name: leader
      spec: {replicas: 1, podSpec: {containers: [{name: l, image: x}]}}
    - name: worker
      spec: {replicas: 4, minAvailable: 3, podSpec: {containers: [{name: w, image: x}]}}
    podCliqueScalingGroups:
    - name: prefill
      cliqueNames: [leader, worker]
      replicas: 5
      minAvailable: 3
)");
  CHECK(gangs == std::vector<Gang>{{"podcliqueset-replica-0", 2 + 3 * (1 + 3), {}},
                                   {"prefill-scaled-0", 1 + 3, {}},
                                   {"prefill-scaled-1", 1 + 3, {}}});
  // Admission writes no name for them and the cluster side makes no PodGroup: Grove and KAI do.
  auto objects = test::parse_yaml(
      "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata: {name: p}\nspec:\n"
      "  template:\n    cliques:\n    - {name: a, spec: {replicas: 2, podSpec: {}}}\n"
      "    podCliqueScalingGroups: [{name: g, cliqueNames: [a], replicas: 2}]\n");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  CHECK(view::build_view(*match.definition, *objects[0].doc).gangs.size() == 1);
}

// KAI pkg/podgrouper/podgrouper/plugins/statefulset: minAvailable 1 unless kai.scheduler/min-member is set and
// podManagementPolicy is Parallel (OrderedReady creates pods one by one); .../deployment: a PodGroup per pod.
TEST_CASE("StatefulSet and Deployment: no gang unless a Parallel StatefulSet asks for one") {
  const std::string sts = R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db%ANNOTATIONS%}
spec:
  replicas: 4
  %POLICY%
  selector: {matchLabels: {app: db}}
  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: x}]}}
)";
  auto with = [&](const std::string& annotations, const std::string& policy) {
    return gangs_of(filled(filled(sts, "%ANNOTATIONS%", annotations), "%POLICY%", policy)).at(0).min_member;
  };
  const std::string asks = ", annotations: {kai.scheduler/min-member: \"4\"}";
  CHECK(with("", "") == 1);
  CHECK(with(asks, "") == 1);  // OrderedReady: a gang of 4 would never start
  CHECK(with(asks, "podManagementPolicy: Parallel") == 4);
  CHECK(with("", "podManagementPolicy: Parallel") == 1);
  CHECK(gangs_of(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}
)")[0]
            .min_member == 1);
}

// KAI pkg/podgrouper/podgrouper/plugins/knative: with gang scheduling on, a revision's gang is its min-scale
// (default 1).
TEST_CASE("Knative Service: the revision's min-scale") {
  const std::string ksvc = R"(
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: hello}
spec:
  template:
    metadata: {annotations: {%ANNOTATIONS%}}
    spec: {containers: [{image: x}]}
)";
  auto with = [&](const std::string& annotations) {
    return gangs_of(filled(ksvc, "%ANNOTATIONS%", annotations)).at(0).min_member;
  };
  CHECK(with("") == 1);
  CHECK(with("autoscaling.knative.dev/min-scale: \"3\"") == 3);
  CHECK(with("autoscaling.knative.dev/min-scale: \"2\", autoscaling.knative.dev/initial-scale: \"5\"") == 2);
}

// Upstream's member filters (the Karta CRD's example: pods with GPUs) select which pods of a component are in the
// gang; they are evaluated over each pod template as the pod it makes.
TEST_CASE("a pod group member's filters leave pod templates out of the gang") {
  const std::string file = test::source_path("tests/fixtures/gang-filters/trainer.yaml");
  catalog::DefinitionLoad load = catalog::load_definitions(test::read_file(file), file);
  INFO((load.errors.empty() ? "" : load.errors[0].str()));
  REQUIRE(load.errors.empty());
  REQUIRE(load.definitions.size() == 1);
  auto objects = test::parse_yaml(R"(
apiVersion: example.com/v1
kind: Trainer
metadata: {name: t}
spec:
  roles:
  - name: gpu
    replicas: 4
    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
  - name: loader
    replicas: 2
    template: {spec: {containers: [{name: c, image: x}]}}
)");
  view::WorkloadView view = view::build_view(load.definitions[0], *objects[0].doc);
  REQUIRE(view.problems.empty());
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].min_member == 4);
  CHECK(view.gangs[0].counts("role", "gpu"));
  CHECK_FALSE(view.gangs[0].counts("role", "loader"));
}

// Cases taken from KAI's own unit tests, with their fixtures and expected minimums.

// ray_grouper_test.go, TestRayAutoscalingWorkerMinimum: worker groups "elastic" (replicas 5, numOfHosts and
// minReplicas per case), "fixed" (replicas 3, minReplicas 2) and "suspended"; the gang is 1 (head) + 2 (fixed) +
// the elastic group's wantWorkers, and the suspended group is no sub-group.
TEST_CASE("KAI's TestRayAutoscalingWorkerMinimum") {
  struct Case {
    const char* name;
    const char* autoscaling;  // "" when omitted
    const char* minimum;      // "" when omitted
    int hosts;
    long long want_workers;
  };
  const Case cases[] = {{"zero minimum", "true", "0", 1, 0},
                        {"omitted minimum", "true", "", 1, 0},
                        {"zero minimum with multiple hosts", "true", "0", 2, 0},
                        {"positive minimum with multiple hosts", "true", "2", 2, 4},
                        {"disabled autoscaling", "false", "0", 1, 5},
                        {"omitted autoscaling", "", "0", 2, 10},
                        {"minimum without autoscaling", "", "2", 1, 2}};
  for (const auto& c : cases) {
    INFO(c.name);
    std::string yaml = R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc}
spec:
)";
    if (*c.autoscaling) yaml += std::string("  enableInTreeAutoscaling: ") + c.autoscaling + "\n";
    yaml += R"(  headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
  workerGroupSpecs:
  - groupName: elastic
    replicas: 5
    numOfHosts: )" +
            std::to_string(c.hosts) + "\n";
    if (*c.minimum) yaml += std::string("    minReplicas: ") + c.minimum + "\n";
    yaml += R"(    template: {spec: {containers: [{name: w, image: ray}]}}
  - groupName: fixed
    replicas: 3
    minReplicas: 2
    template: {spec: {containers: [{name: w, image: ray}]}}
  - groupName: suspended
    replicas: 3
    suspended: true
    template: {spec: {containers: [{name: w, image: ray}]}}
)";
    auto gangs = gangs_of(yaml);
    REQUIRE(gangs.size() == 1);
    CHECK(gangs[0] == Gang{"cluster", c.want_workers + 3, {{"head", 1}, {"elastic", c.want_workers}, {"fixed", 2}}});
  }
}

// ray_grouper_test.go, TestGetPodGroupMetadata_RayCluster_NumOfHosts (MinAvailable 8) and _SuspendedWorkers (3).
TEST_CASE("KAI's TestGetPodGroupMetadata_RayCluster_NumOfHosts and _SuspendedWorkers") {
  CHECK(gangs_of(R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: test-ray-cluster}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
  workerGroupSpecs:
  - {numOfHosts: 2, replicas: 3, minReplicas: 2, template: {spec: {containers: [{name: w, image: ray}]}}}
  - {numOfHosts: 3, replicas: 3, minReplicas: 1, template: {spec: {containers: [{name: w, image: ray}]}}}
)")[0]
            .min_member == 8);
  CHECK(gangs_of(R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: test-ray-cluster}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
  workerGroupSpecs:
  - {replicas: 3, minReplicas: 2, template: {spec: {containers: [{name: w, image: ray}]}}}
  - {suspended: true, replicas: 3, minReplicas: 1, template: {spec: {containers: [{name: w, image: ray}]}}}
)")[0]
            .min_member == 3);
}

// jobset_grouper_test.go: replicatedJob(name, replicas, parallelism) fixtures. A replica's leaf minimum is its
// parallelism, or its Job template's batch-min-member; InOrder starts with the first replicated job only (root
// minSubGroup 1). dependsOn no longer changes the root (KAI at d5bc503a: computePodGroupMinSubGroup reads only the
// annotation and InOrder; its earlier TestDependsOnRootMinSubGroupCollapsed is gone), which KAI's podgrouper
// confirms in tests/cluster/scheduler_oracle_test.cpp.
TEST_CASE("KAI's JobSet grouper tests: AnyOrder, InOrder, dependsOn, template min-member") {
  auto job_set = [](const std::string& extra_spec, const std::string& jobs) {
    return gangs_of("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n" + extra_spec +
                    "  replicatedJobs:\n" + jobs)[0];
  };
  auto rj = [](const std::string& name, int replicas, int parallelism, const std::string& more = "") {
    return "  - name: " + name + "\n    replicas: " + std::to_string(replicas) + more +
           "\n    template:\n      spec: {parallelism: " + std::to_string(parallelism) +
           ", template: {spec: {containers: [{name: c, image: x}]}}}\n";
  };
  // TestSingleReplicatedJobMultipleReplicas: worker (3, 4): three leaves of 4.
  CHECK(job_set("", rj("worker", 3, 4)) == Gang{"jobset", 12, {{"worker", 12}}});
  // TestMultipleReplicatedJobsAnyOrder / TestStartupPolicyInOrderRootMinSubGroup: leader (1, 1), worker (2, 4).
  CHECK(job_set("  startupPolicy: {startupPolicyOrder: AnyOrder}\n", rj("leader", 1, 1) + rj("worker", 2, 4)) ==
        Gang{"jobset", 9, {{"leader", 1}, {"worker", 8}}});
  CHECK(job_set("  startupPolicy: {startupPolicyOrder: InOrder}\n", rj("leader", 1, 1) + rj("worker", 2, 4)) ==
        Gang{"jobset", 1, {{"leader", 1}, {"worker", 8}}, 1});
  // node (1, 2), launcher (1, 1) depending on node: every sub-group at the root (minSubGroups unset). The gang's
  // minimum under the plain minimum rule still leaves the dependent job out (the kai profile counts it: policy.yaml).
  CHECK(job_set("", rj("node", 1, 2) + rj("launcher", 1, 1, "\n    dependsOn: [{name: node, status: Ready}]")) ==
        Gang{"jobset", 2, {{"node", 2}, {"launcher", 1}}});
  // a and b start, c depends on both: the same.
  CHECK(job_set("", rj("a", 1, 1) + rj("b", 1, 1) +
                        rj("c", 1, 1, "\n    dependsOn: [{name: a, status: Ready}, {name: b, status: Ready}]")) ==
        Gang{"jobset", 2, {{"a", 1}, {"b", 1}, {"c", 1}}});
  // TestJobSetAnnotationOverridesRoot, TestJobSetAnnotationClampedToReplicatedJobCount,
  // TestJobSetAnnotationWinsOverInOrder: the JobSet's batch-min-member is minSubGroups, at most the jobs.
  const std::string three = rj("a", 1, 1) + rj("b", 1, 1) + rj("c", 1, 1);
  auto annotated_set = [&](const std::string& value, const std::string& order, const std::string& jobs) {
    return gangs_of(
               "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js, annotations: "
               "{kai.scheduler/batch-min-member: \"" +
               value + "\"}}\nspec:\n" + order + "  replicatedJobs:\n" + jobs)[0]
        .min_sub_groups;
  };
  CHECK(annotated_set("2", "  startupPolicy: {startupPolicyOrder: AnyOrder}\n", three) == 2);
  CHECK(annotated_set("9", "", rj("a", 1, 1) + rj("b", 1, 1)) == 2);
  CHECK(annotated_set("2", "  startupPolicy: {startupPolicyOrder: InOrder}\n", rj("a", 1, 1) + rj("b", 1, 1)) == 2);
  // TestEmptyDependsOnIgnored.
  CHECK(job_set("", rj("a", 1, 1) + rj("b", 1, 1, "\n    dependsOn: []")).min_member == 2);
  // TestTemplateAnnotationOverridesLeafMinMember: worker (2, 8) with batch-min-member 5 on its Job template.
  const std::string annotated =
      "  - name: worker\n    replicas: 2\n    template:\n      metadata: {annotations: "
      "{kai.scheduler/batch-min-member: \"5\"}}\n      spec: {parallelism: 8, template: "
      "{spec: {containers: [{name: c, image: x}]}}}\n";
  CHECK(job_set("", annotated) == Gang{"jobset", 10, {{"worker", 10}}});
}

// Dynamo's v1beta1 (components with a podTemplate) has a definition of its own; minAvailable is Grove's gang.
TEST_CASE("DynamoGraphDeployment v1beta1: components' pod templates, nodeCount and minAvailable") {
  auto objects = test::parse_yaml(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: disagg}
spec:
  components:
  - name: frontend
    replicas: 2
    minAvailable: 1
    podTemplate: {spec: {containers: [{name: main, image: dynamo}]}}
  - name: prefill
    replicas: 2
    multinode: {nodeCount: 2}
    podTemplate: {spec: {containers: [{name: main, image: dynamo, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  CHECK(match.definition->gvk.version == "v1beta1");
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  REQUIRE(view.problems.empty());
  CHECK(view.total_pods == 2 + 4);
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 32);
  REQUIRE(view.components.at(1).instances.size() == 2);
  CHECK(view.components.at(1).instances[1].location == "/spec/components/1/podTemplate");
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].min_member == 1 + 4);
}

TEST_CASE("gang rules are named in policies by these names") {
  CHECK(view::gang_rule_from_name("minimum") == view::GangRule::Minimum);
  CHECK(view::gang_rule_from_name("all-pods") == view::GangRule::AllPods);
  CHECK_FALSE(view::gang_rule_from_name("all"));
  CHECK(std::string(view::gang_rule_name(view::GangRule::AllPods)) == "all-pods");
}

}  // namespace wm

namespace wm {

// KubeRay ray-operator/controllers/ray/utils/util_test.go, TestGetWorkerGroupDesiredReplicas: the pods KubeRay starts
// for a worker group are its replicas clamped to [minReplicas, maxReplicas] (maxReplicas when minReplicas exceeds
// it), times numOfHosts; a group with `suspend` starts none.
TEST_CASE("KubeRay's TestGetWorkerGroupDesiredReplicas: workers clamped to [minReplicas, maxReplicas]") {
  auto pods = [](const std::string& group) {
    auto objects = test::parse_yaml(R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
  workerGroupSpecs:
  - {)" + group + R"(, template: {spec: {containers: [{name: w, image: ray}]}}}
)");
    REQUIRE(objects.size() == 1);
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
    return view.total_pods - 1;  // without the head
  };
  CHECK(pods("minReplicas: 1, maxReplicas: 5") == 1);               // Test 1: replicas unset
  CHECK(pods("replicas: 3, minReplicas: 1, maxReplicas: 5") == 3);  // Test 2: within the range
  CHECK(pods("replicas: 6, minReplicas: 1, maxReplicas: 5") == 5);  // Test 3: above maxReplicas
  CHECK(pods("replicas: 0, minReplicas: 1, maxReplicas: 5") == 1);  // Test 4: below minReplicas
  CHECK(pods("replicas: 3, minReplicas: 6, maxReplicas: 5") == 5);  // minReplicas above maxReplicas
  CHECK(pods("replicas: 6, minReplicas: 1, maxReplicas: 5, numOfHosts: 4") == 20);
  CHECK(pods("replicas: 3, minReplicas: 1, maxReplicas: 5, suspend: true") == 0);
  CHECK(pods("replicas: 3") == 3);  // no bounds: maxReplicas defaults to MaxInt32
}

}  // namespace wm

namespace wm {

// fuzz_admission's structured mutator found a replica count of 1e308 cast to a long long
// (tests/fuzz/regressions/admission/replicas-1e308.json): Kubernetes' counts are int32, so a larger one is no count.
TEST_CASE("a replica count beyond int32 is not a count") {
  auto objects = test::parse_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: 1e308
  template: {spec: {containers: [{name: c, image: x}]}}
)");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  REQUIRE(view.problems.size() == 1);
  CHECK(view.problems[0] == "component deployment: replicasPath is not a count: 1e+308");
  CHECK(view.total_pods == 1);
}

}  // namespace wm

namespace wm {

// KubeRay ray-operator v1.6.2 batchscheduler/volcano/volcano_scheduler_test.go: TestCalculatePodGroupParams,
// TestCreatePodGroupForRayCluster(_NumOfHosts2) and TestCreatePodGroupForRayJob(_NumOfHosts2). KubeRay's own Volcano
// integration makes the PodGroup of a Ray workload under the volcano profile, so the profile counts its minimum as
// KubeRay does (the definitions' `kuberay` minimums), not as KAI's Ray grouper does.
TEST_CASE("KubeRay's Volcano PodGroup tests: the volcano profile counts the head and the desired or minimum workers") {
  auto min_member = [](const std::string& kind, const std::string& spec_extra, int hosts, const char* profile_name) {
    std::string cluster = spec_extra + R"(
headGroupSpec: {template: {spec: {containers: [{name: h, image: ray}]}}}
workerGroupSpecs:
- {replicas: 2, minReplicas: 1, maxReplicas: 4, numOfHosts: )" +
                          std::to_string(hosts) + R"(, template: {spec: {containers: [{name: w, image: ray}]}}}
)";
    const std::string indent = kind == "RayJob" ? "    " : "  ";  // a RayJob holds the cluster in rayClusterSpec
    std::string spec = kind == "RayJob" ? "  rayClusterSpec:\n" : "";
    for (size_t at = 0, end; at < cluster.size(); at = end + 1) {
      end = cluster.find('\n', at);
      if (end > at) spec += indent + cluster.substr(at, end - at) + "\n";
    }
    auto objects = test::parse_yaml("apiVersion: ray.io/v1\nkind: " + kind + "\nmetadata: {name: r}\nspec:\n" + spec);
    REQUIRE(objects.size() == 1);
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    const policy::Policy policy = policy::Policy::builtin();
    const policy::SchedulerProfile* profile = policy.profile(profile_name);
    REQUIRE(profile);
    view::WorkloadView view =
        view::build_view(*match.definition, *objects[0].doc, policy::view_options_for(*profile, "ray.io", kind));
    INFO(kind << " " << spec_extra << " numOfHosts " << hosts << " under " << profile_name);
    REQUIRE(view.problems.empty());
    REQUIRE(view.gangs.size() == 1);
    return view.gangs[0].min_member;
  };
  for (const char* kind : {"RayCluster", "RayJob"}) {
    // Without autoscaling: 1 head + the desired workers (2 replicas x numOfHosts).
    CHECK(min_member(kind, "", 1, "volcano") == 3);
    CHECK(min_member(kind, "", 2, "volcano") == 5);
    // With autoscaling: 1 head + minReplicas x numOfHosts.
    CHECK(min_member(kind, "enableInTreeAutoscaling: true", 1, "volcano") == 2);
    CHECK(min_member(kind, "enableInTreeAutoscaling: true", 2, "volcano") == 3);
    // KAI's grouper, for the same objects: a group with a minReplicas counts minReplicas x numOfHosts.
    CHECK(min_member(kind, "", 1, "kai") == 2);
    CHECK(min_member(kind, "", 2, "kai") == 3);
  }
}

}  // namespace wm
