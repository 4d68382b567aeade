// KAI Scheduler (tests/cluster/schedulers/kai: its podgrouper, scheduler and binder, built from ../shared/kai) as the
// oracle of the kai profile: what its podgrouper makes of a workload is compared with what `workload-map inspect
// --profile kai` says, and it reads the same catalog. Nothing here makes a PodGroup or binds a pod; where no operator
// of a kind runs in the bed, the test creates the pods from the stored workload's template, as that operator would.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/cluster/scheduler_bed.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;
using namespace std::chrono_literals;

namespace {

const Cluster& cluster() { return Cluster::get(); }

// The shipped policy as it is (manifests/base/policy.yaml: its one rule, the kai profile, the queue from the label
// kai.scheduler/queue, else the profile's default), its rule narrowed to `ns` and to the namespaces in which
// register_webhooks() probes the webhook.
std::string shipped_policy_for(const std::string& ns) {
  std::string policy = read_file(source_path("manifests/base/policy.yaml"));
  const std::string all = "\n  namespaces: [\"*\"]\n";
  const size_t at = policy.find(all, policy.find("\nrules:"));
  REQUIRE(at != std::string::npos);
  return policy.replace(at, all.size(), "\n  namespaces: [\"" + ns + "\", \"webhook-probe-*\"]\n");
}

// KAI's PodGroups in `ns` whose owner is `kind`/`name`, as "minMember/queue" each (podgrouper pkg/podgroup:
// spec.minMember, spec.queue).
std::vector<std::string> kai_pod_groups(const std::string& ns, const std::string& kind, const std::string& name) {
  CommandResult r = cluster().kubectl(
      {"get", "podgroups.scheduling.run.ai", "-n", ns, "-o",
       "jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} "
       "{.spec.minMember}/{.spec.queue}{\"\\n\"}{end}"});
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(kind + "/" + name + " ")) out.push_back(line.substr(line.find(' ') + 1));
  return out;
}

// The gang `workload-map inspect -o json --profile kai` gives the one object of `workload_file`, with the definition
// `karta_yaml` beside the built-in catalog (--definitions DIR): its minMember.
long long inspect_kai_min_member(const std::string& workload_file, const std::string& karta_yaml) {
  char dir[] = "/tmp/wm-kai-definitions-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::ofstream(std::string(dir) + "/karta.yaml") << karta_yaml;
  CommandResult r =
      run_command({WM_CLI, "inspect", "-o", "json", "--profile", "kai", "--definitions", dir, workload_file});
  std::filesystem::remove_all(dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element out = parser.parse(r.out).value();
  simdjson::dom::element first = out.is_array() ? out.at(0).value() : out;
  int64_t min_member = -1;
  REQUIRE(first.at_pointer("/gangs/0/minMember").get_int64().get(min_member) == simdjson::SUCCESS);
  return min_member;
}

// A workload kind of the test's own, which KAI has no grouper for: a Trainer runs `replicas` pods of its template,
// and needs `minReplicas` of them at once.
const char* const kTrainerCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: trainers.wm-test.example.com}
spec:
  group: wm-test.example.com
  scope: Namespaced
  names: {plural: trainers, singular: trainer, kind: Trainer, listKind: TrainerList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

// Its Karta, as upstream Workload Map documents writing one: no labels.
const char* const kTrainerKarta = R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: wm-test-trainer}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: wm-test.example.com, version: v1, kind: Trainer}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: .spec.replicas
        minReplicasPath: .spec.minReplicas
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running:
          - byPhase: Running
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: trainer
)";

std::string trainer_yaml(const std::string& pool) {
  return "apiVersion: wm-test.example.com/v1\nkind: Trainer\nmetadata: {name: fit}\nspec:\n  replicas: 4\n"
         "  minReplicas: 3\n  template:\n    metadata: {labels: {app: fit}}\n    spec:\n"
         "      nodeSelector: {workload-map.io/node-pool: " +
         pool +
         "}\n      containers: [{name: fit, image: registry.example/fit:1, resources: {limits: {nvidia.com/gpu: "
         "1}}}]\n";
}

// The Trainer's pods, made as its operator would make them: from its stored template (with the webhook's edits),
// each controlled by it.
void create_trainer_pods(const std::string& ns, int count) {
  simdjson::dom::parser parser;
  simdjson::dom::element trainer = cluster().get_json(parser, {"get", "trainers.wm-test.example.com", "fit", "-n", ns});
  const std::string uid = string_at(trainer, "/metadata/uid");
  simdjson::dom::element tmpl = trainer.at_pointer("/spec/template").value();
  for (int i = 0; i < count; ++i) {
    CommandResult pod = run_command(
        {"jq", "-c", "--arg", "uid", uid, "--arg", "name", "fit-" + std::to_string(i),
         "{apiVersion: \"v1\", kind: \"Pod\", metadata: (.metadata + {name: $name, ownerReferences: [{apiVersion: "
         "\"wm-test.example.com/v1\", kind: \"Trainer\", name: \"fit\", uid: $uid, controller: true}]}), spec: .spec}"},
        simdjson::to_string(tmpl));
    REQUIRE(pod.status == 0);
    CommandResult created = cluster().kubectl({"create", "-n", ns, "-f", "-"}, pod.out);
    INFO(created.err);
    REQUIRE(created.status == 0);
  }
}

}  // namespace

TEST_CASE(
    "kai: a kind KAI has no grouper for, its Karta applied without KAI's labels, gets from KAI's Karta fallback the "
    "PodGroup inspect --profile kai says") {
  start_scheduler("kai");
  const std::string pool = node_pool("karta-kai");
  add_nodes(pool, 1, 4);
  const std::string ns = make_namespace("karta-kai", true);
  RegisteredWebhook webhook(policy_for(ns, "kai", ""), "base", cluster_side_args("karta-kai"));
  REQUIRE(cluster().kubectl({"apply", "-f", "-"}, kTrainerCrd).status == 0);
  REQUIRE(cluster().kubectl({"wait", "--for", "condition=established", "crd/trainers.wm-test.example.com"}).status ==
          0);
  REQUIRE(cluster().kubectl({"apply", "-f", "-"}, kTrainerKarta).status == 0);
  // The cluster side accepts it as a definition, and gives it the labels KAI looks it up by, and upstream's operator.
  auto karta_field = [](const std::string& jsonpath) {
    return cluster().kubectl({"get", "kartas.run.ai", "wm-test-trainer", "-o", "jsonpath=" + jsonpath}).out;
  };
  const bool labelled = eventually(
      [&] {
        return karta_field(
                   "{.metadata.labels.run\\.ai/karta-group}/{.metadata.labels.run\\.ai/karta-version}/"
                   "{.metadata.labels.run\\.ai/karta-kind} {.metadata.labels.karta\\.run\\.ai/group}/"
                   "{.metadata.labels.karta\\.run\\.ai/version}/{.metadata.labels.karta\\.run\\.ai/kind}") ==
               "wm-test.example.com/v1/Trainer wm-test.example.com/v1/Trainer";
      },
      30s, 500ms);
  INFO(webhook.server().log());
  REQUIRE(labelled);
  REQUIRE(eventually([&] { return karta_field("{.status.conditions[0].status}") == "True"; }, 30s, 500ms));

  const std::string trainer = trainer_yaml(pool);
  kubectl_apply(ns, trainer);
  const long long expected = inspect_kai_min_member(write_temp(ns + "-trainer.yaml", trainer), kTrainerKarta);
  CHECK(expected == 3);
  // The webhook edited the template: KAI's scheduler name, and the profile's default queue, which exists.
  CHECK(cluster()
            .kubectl({"get", "trainers.wm-test.example.com", "fit", "-n", ns, "-o",
                      "jsonpath={.spec.template.spec.schedulerName}/"
                      "{.spec.template.metadata.labels.kai\\.scheduler/queue}"})
            .out == "kai-scheduler/default-queue");
  create_trainer_pods(ns, 4);
  std::vector<std::string> groups;
  const bool grouped = eventually(
      [&] {
        groups = kai_pod_groups(ns, "Trainer", "fit");
        return !groups.empty();
      },
      60s, 500ms);
  INFO(describe(ns));
  REQUIRE(grouped);
  CHECK(groups == std::vector<std::string>{std::to_string(expected) + "/default-queue"});
  // 4 GPUs hold all 4 pods: KAI binds them.
  CHECK(eventually([&] { return count_pods(ns, "app=fit").bound == 4; }, 60s, 500ms));
}

// The shipped policy in front of a stock KAI install: a workload that names no queue lands in default-queue, which the
// install made; one whose queue KAI does not have is admitted with a warning that says so (the cluster side holds
// KAI's Queues from a watch: admission asks the API server nothing).
TEST_CASE("kai: a workload in a queue KAI does not have is admitted with a warning, and one in no queue is not") {
  start_scheduler("kai");
  const std::string ns = make_namespace("queues-kai", true);
  RegisteredWebhook webhook(shipped_policy_for(ns), "base", cluster_side_args("queues-kai"));
  const std::string pool = node_pool("queues-kai");
  auto dry_run = [&](const std::string& name, const std::string& labels) {
    std::string yaml = jobset_yaml({.name = name, .jobs = {{"workers", 1}}, .gpus = 1, .pool = pool});
    yaml.insert(yaml.find("\nspec:"), "\n  labels: {" + labels + "}");
    return cluster().kubectl({"create", "--dry-run=server", "-n", ns, "-f", "-"}, yaml);
  };
  const std::string warning =
      "queue \"research\" does not exist (no scheduling.run.ai/v2 Queue of that name in the cluster); kai-scheduler "
      "leaves the workload pending until it is created";
  CommandResult missing;
  const bool warned = eventually(
      [&] {
        missing = dry_run("in-research", "kai.scheduler/queue: research");
        return missing.err.find(warning) != std::string::npos;
      },
      30s, 500ms);
  INFO(missing.out << missing.err << webhook.server().log());
  CHECK(warned);
  CHECK(missing.status == 0);
  const CommandResult present = dry_run("in-default", "team: a");
  CHECK(present.status == 0);
  CHECK(present.err.find("does not exist") == std::string::npos);
  // Once the queue is made, the warning goes.
  kubectl_apply("default", R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: research}
spec:
  parentQueue: default-parent-queue
  resources:
    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}
    cpu: {quota: 0, limit: -1, overQuotaWeight: 1}
    memory: {quota: 0, limit: -1, overQuotaWeight: 1}
)");
  CHECK(eventually(
      [&] { return dry_run("in-research", "kai.scheduler/queue: research").err.find(warning) == std::string::npos; },
      30s, 500ms));
}
