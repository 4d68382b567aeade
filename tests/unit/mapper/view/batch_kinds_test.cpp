// SparkApplication and Volcano Job: the pods their operators start, their requests, and their gangs under each
// scheduler's rule, after the upstream code each case cites.
#include <catch2/catch.hpp>

#include "mapper/view/gangs.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"
#include "policy/profile_choice.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

struct Counted {
  long long pods = 0, gang = 0;
  std::string requests;  // "name=quantity" joined by spaces
  std::vector<std::string> unmeetable;
};

// The one object in `yaml` as `profile` sees it ("" for the definitions' own minimums), without a warning.
Counted counted(const std::string& yaml, const std::string& profile = "") {
  auto objects = test::parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::ViewOptions options;
  if (!profile.empty()) {
    const policy::Policy policy = policy::Policy::builtin();
    const policy::SchedulerProfile* p = policy.profile(profile);
    REQUIRE(p);
    options = policy::view_options_for(*p, match.definition->gvk.group, objects[0].kind);
  }
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc, options);
  INFO(view.problems.size() << " warnings" << (view.problems.empty() ? "" : ": " + view.problems[0]));
  REQUIRE(view.problems.empty());
  REQUIRE(view.gangs.size() == 1);
  Counted out{view.gangs[0].pods, view.gangs[0].min_member, {}, view::unmeetable_gangs(view.gangs)};
  for (const auto& [name, quantity] : view.total_requests)
    out.requests += (out.requests.empty() ? "" : " ") + name + "=" + quantity.str(/*binary_suffixes=*/true);
  return out;
}

std::string spark(const std::string& spec, const std::string& type = "Scala") {
  return "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {name: s}\nspec:\n  type: " +
         type + "\n  mainApplicationFile: local:///app.jar\n  sparkVersion: 4.0.0\n" + spec;
}

std::string volcano_job(const std::string& min_available, const std::string& tasks) {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec:\n" + min_available +
         "  tasks:\n" + tasks;
}

std::string task(const std::string& name, int replicas, const std::string& extra = "") {
  return "  - {name: " + name + ", replicas: " + std::to_string(replicas) + extra +
         ", template: {spec: {containers: [{name: c, image: x}]}}}\n";
}

}  // namespace

// spark-operator pkg/util GetInitialExecutorNumber (after Spark's SchedulerBackendUtils) and api/v1beta2/defaults.go:
// with dynamic allocation the largest of instances, initialExecutors and minExecutors; otherwise instances, else
// sparkConf's spark.executor.instances, else 1. The driver is 1 in cluster mode, none in client mode.
TEST_CASE("SparkApplication: the driver and the executors Spark starts with") {
  CHECK(counted(spark("  driver: {}\n  executor: {instances: 4}\n")).pods == 5);
  CHECK(counted(spark("  driver: {}\n  executor: {}\n")).pods == 2);
  CHECK(counted(spark("  sparkConf: {spark.executor.instances: \"3\"}\n  driver: {}\n  executor: {}\n")).pods == 4);
  CHECK(counted(spark("  mode: client\n  driver: {}\n  executor: {instances: 2}\n")).pods == 2);
  const std::string dynamic =
      "  driver: {}\n  executor: {instances: %I}\n  dynamicAllocation: {enabled: true, "
      "initialExecutors: %A, minExecutors: %M, maxExecutors: 10}\n";
  auto with = [&](int instances, int initial, int minimum) {
    std::string spec = dynamic;
    spec.replace(spec.find("%I"), 2, std::to_string(instances));
    spec.replace(spec.find("%A"), 2, std::to_string(initial));
    spec.replace(spec.find("%M"), 2, std::to_string(minimum));
    return counted(spark(spec)).pods - 1;
  };
  CHECK(with(1, 2, 1) == 2);  // examples/spark-pi-dynamic-allocation.yaml
  CHECK(with(5, 2, 1) == 5);
  CHECK(with(1, 2, 4) == 4);
  // Disabled dynamic allocation: instances alone.
  CHECK(counted(spark("  driver: {}\n  executor: {instances: 3}\n  dynamicAllocation: {enabled: false, "
                      "initialExecutors: 7}\n"))
            .pods == 4);
}

// spark-operator internal/scheduler/resourceusage/memory.go and Spark's BasicDriverFeatureStep: memory (default 1g, a
// bare number MiB) plus memoryOverhead, else the larger of 384 MiB and memory x the overhead factor (0.1 for the JVM,
// 0.4 otherwise, or spec.memoryOverheadFactor), floored to MiB; cpu coreRequest, else cores (default 1); gpu as a
// limit.
TEST_CASE("SparkApplication: each pod's requests as Spark writes them") {
  CHECK(counted(spark("  driver: {}\n  executor: {instances: 1}\n")).requests == "cpu=2 memory=2816Mi");
  CHECK(counted(spark("  driver: {cores: 2, memory: 4g}\n  executor: {instances: 2, cores: 4, memory: 8g, "
                      "gpu: {name: nvidia.com/gpu, quantity: 2}}\n"))
            .requests == "cpu=10 memory=22527Mi nvidia.com/gpu=4");  // 4505 + 2 x 9011 MiB
  // 4g + 409.6: 4505 MiB; the explicit overhead replaces the factor; coreRequest replaces cores.
  CHECK(counted(spark("  driver: {memory: 4096m, coreRequest: 500m}\n  executor: {instances: 1, memory: 2g, "
                      "memoryOverhead: 1g}\n"))
            .requests == "cpu=1500m memory=7577Mi");
  // Python: a factor of 0.4, and the executors' pyspark memory.
  CHECK(counted(spark("  sparkConf: {spark.executor.pyspark.memory: 1g}\n  driver: {memory: 2g}\n"
                      "  executor: {instances: 1, memory: 2g}\n",
                      "Python"))
            .requests == "cpu=2 memory=6758Mi");  // 2867 + 3891 MiB
}

// KAI pkg/podgrouper/podgrouper/plugins/spark/spark.go is the default grouper (minAvailable 1) named by the pods'
// spark-app-selector; the Spark operator's Volcano PodGroup has minMember 1 too. Its YuniKorn integration reserves the
// driver and every initial executor (internal/scheduler/yunikorn/scheduler.go), which the yunikorn profile follows.
TEST_CASE("SparkApplication gangs: the driver under KAI and Volcano, every initial pod under YuniKorn") {
  const std::string app = spark("  driver: {}\n  executor: {instances: 4}\n");
  CHECK(counted(app).gang == 1);
  CHECK(counted(app, "kai").gang == 1);
  CHECK(counted(app, "volcano").gang == 1);
  CHECK(counted(app, "yunikorn").gang == 5);
  CHECK(counted(app, "kueue").gang == 5);  // Kueue admits every pod
  const std::string dynamic =
      spark("  driver: {}\n  executor: {instances: 1}\n  dynamicAllocation: {enabled: true, minExecutors: 3}\n");
  CHECK(counted(dynamic, "yunikorn").gang == 4);
  CHECK(counted(dynamic, "kai").gang == 1);
}

// Volcano pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMinAvailable: minAvailable defaults to the sum
// of the tasks' minAvailable, else replicas; pkg/controllers/job createOrUpdatePodGroup: the PodGroup's minMember is
// spec.minAvailable, each task's minTaskMember its minAvailable, else replicas; the gang plugin checks the tasks' only
// while the job's minimum covers them (api JobInfo.CheckTaskValid).
// kubeflow/spark-operator internal/controller/sparkapplication/submission.go: with a pod template (Spark 3 and
// later) Spark builds the role's pods from it and the operator's webhook leaves them alone, so the pod fields are
// edited in the template; without one, or before Spark 3, in the role's own fields, which the webhook copies.
TEST_CASE("SparkApplication: pod fields go in a role's pod template where Spark 3 uses it, else in the role") {
  auto fields = [](const std::string& yaml) {
    auto objects = test::parse_yaml(yaml);
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
    REQUIRE(view.problems.empty());
    std::string out;
    for (const auto& c : view.components)
      for (const auto& i : c.instances)
        if (i.fields.scheduler_name)
          out += (out.empty() ? "" : " ") + *i.fields.scheduler_name + " " + i.fields.labels.value_or("-") + " " +
                 i.fields.annotations.value_or("-") + " " + i.fields.priority_class_name.value_or("-");
    return out;
  };
  const std::string templated =
      "  driver: {template: {spec: {containers: [{name: spark-kubernetes-driver}]}}}\n"
      "  executor: {instances: 2}\n";
  CHECK(
      fields(spark(templated)) ==
      "/spec/driver/template/spec/schedulerName /spec/driver/template/metadata/labels "
      "/spec/driver/template/metadata/annotations /spec/driver/template/spec/priorityClassName "
      "/spec/executor/schedulerName /spec/executor/labels /spec/executor/annotations /spec/executor/priorityClassName");
  std::string spark2 = spark(templated);
  spark2.replace(spark2.find("sparkVersion: 4.0.0"), 19, "sparkVersion: 2.4.5");  // no pod templates before Spark 3
  CHECK(
      fields(spark2) ==
      "/spec/driver/schedulerName /spec/driver/labels /spec/driver/annotations /spec/driver/priorityClassName "
      "/spec/executor/schedulerName /spec/executor/labels /spec/executor/annotations /spec/executor/priorityClassName");
}

// Argo Workflows (workflow/controller/workflowpod.go createWorkflowPod): a pod per call of a template that runs one,
// its GPUs from the template's container; each pod alone (a gang of 1). The scheduler name goes where the pod takes
// it: the template's own where it sets one, else the workflow's spec.schedulerName; so too for labels.
TEST_CASE("Argo Workflow: a pod per call of a pod template, its GPUs, and its pod fields where Argo reads them") {
  auto objects = test::parse_yaml(R"(apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: train-}
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: prepare, template: cpu-step}
      - {name: shard, template: gpu-step, dependencies: [prepare], withItems: [a, b, c]}
  - name: cpu-step
    schedulerName: default-scheduler
    metadata: {labels: {step: prepare}}
    container: {image: busybox}
  - name: gpu-step
    container: {image: trainer, resources: {limits: {nvidia.com/gpu: 2}}}
)");
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  REQUIRE(view.problems.empty());
  CHECK(view.total_pods == 4);
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 6);
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].min_member == 1);
  const auto& steps = view.components.at(1).instances;
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].id == "cpu-step");
  CHECK(steps[0].fields.scheduler_name == "/spec/templates/1/schedulerName");
  CHECK(steps[0].fields.labels == "/spec/templates/1/metadata/labels");
  CHECK(steps[1].id == "gpu-step");
  CHECK(steps[1].pods == 3);
  CHECK(steps[1].fields.scheduler_name == "/spec/schedulerName");
  CHECK(steps[1].fields.labels == "/spec/podMetadata/labels");
}

TEST_CASE("Volcano Job: spec.minAvailable, else the tasks' minAvailable or replicas") {
  const std::string tf = task("ps", 1) + task("worker", 3);
  CHECK(counted(volcano_job("", tf)).gang == 4);
  CHECK(counted(volcano_job("", tf)).pods == 4);
  CHECK(counted(volcano_job("  minAvailable: 2\n", tf)).gang == 2);
  CHECK(counted(volcano_job("", task("ps", 1) + task("worker", 4, ", minAvailable: 2"))).gang == 3);
  CHECK(counted(volcano_job("  minAvailable: 4\n", task("ps", 1) + task("worker", 4, ", minAvailable: 2"))).gang == 4);
  // A minimum past the pods: Volcano keeps the job Pending for ever, and the gang says so.
  const Counted never = counted(volcano_job("  minAvailable: 9\n", tf));
  CHECK(never.gang == 9);
  REQUIRE(never.unmeetable.size() == 1);
  CHECK_THAT(never.unmeetable[0], Catch::Contains("needs 9 pods placed at once but starts 4"));
  // KAI has no Volcano Job grouper: its default grouper's minAvailable 1.
  CHECK(counted(volcano_job("  minAvailable: 4\n", tf), "kai").gang == 1);
  CHECK(counted(volcano_job("", tf), "kueue").gang == 4);
}

// Volcano's webhook names an unnamed task default<index> (mutate_job.go mutateSpec); its pods carry the name in the
// volcano.sh/task-spec annotation.
TEST_CASE("Volcano Job: a task without a name is default<index>") {
  auto objects = test::parse_yaml(
      volcano_job("", "  - {replicas: 2, template: {spec: {containers: [{name: c}]}}}\n" + task("worker", 1)));
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  const view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  std::vector<std::string> ids;
  for (const auto& c : view.components)
    if (c.name == "task")
      for (const auto& i : c.instances) ids.push_back(i.id + "=" + std::to_string(i.pods));
  CHECK(ids == std::vector<std::string>{"default0=2", "worker=1"});
}

}  // namespace wm
