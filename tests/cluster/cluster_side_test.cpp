// The webhook's own conversation with the cluster (controllers/, kube/), on the real control plane and under the
// RBAC the manifests ship: Karta objects become definitions (and get a status), PodGroups are made, followed and
// collected, one replica leads, and an API server that goes away slows no admission.
#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <regex>

#include "tests/cluster/cluster_support.h"
#include "tests/cluster/tcp_proxy.h"
#include "tests/support/test_support.h"

using namespace wm::test;
using Clock = std::chrono::steady_clock;

namespace {

std::string kubeconfig_value(const std::string& jsonpath) {
  CommandResult r = Cluster::get().kubectl({"config", "view", "--raw", "-o", "jsonpath={" + jsonpath + "}"});
  REQUIRE(r.status == 0);
  return r.out;
}

// A kubeconfig for the workload-map ServiceAccount, with exactly the roles manifests/base gives it (rbac.yaml),
// its token in a file (as in a pod). `server` replaces the API server's address (a proxy in front of it).
std::string service_account_kubeconfig(const std::string& server = "") {
  const Cluster& c = Cluster::get();
  static bool applied = false;
  if (!applied) {
    CommandResult rendered = c.kubectl({"kustomize", source_path("manifests/base")});
    REQUIRE(rendered.status == 0);
    std::string objects;
    for (const auto& o : parse_yaml(rendered.out, "manifests/base"))
      if (o.kind == "Namespace" || o.kind == "ServiceAccount" || o.kind == "ClusterRole" ||
          o.kind == "ClusterRoleBinding" || o.kind == "Role" || o.kind == "RoleBinding")
        objects += simdjson::to_string(o.root) + "\n";
    CommandResult r = c.kubectl({"apply", "--server-side", "--force-conflicts", "-f", "-"}, objects);
    INFO(r.err);
    REQUIRE(r.status == 0);
    applied = true;
  }
  CommandResult token = c.kubectl({"create", "token", "workload-map", "-n", "workload-map", "--duration", "2h"});
  INFO(token.err);
  REQUIRE(token.status == 0);
  const std::string token_file = write_temp("workload-map-token", token.out);
  const std::string ca = kubeconfig_value(".clusters[0].cluster.certificate-authority");
  const std::string address = server.empty() ? kubeconfig_value(".clusters[0].cluster.server") : server;
  static int n = 0;
  return write_temp("sa-kubeconfig-" + std::to_string(++n),
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + address +
                        "\", certificate-authority: \"" + ca +
                        "\"}\nusers:\n- name: workload-map\n  user: {tokenFile: \"" + token_file +
                        "\"}\ncontexts:\n- name: c\n  context: {cluster: c, user: workload-map, namespace: "
                        "workload-map}\ncurrent-context: c\n");
}

std::vector<std::string> cluster_args(const std::string& kubeconfig, const std::string& identity = "test") {
  return {"--kubeconfig", kubeconfig, "--identity", identity, "--log-level", "debug"};
}

simdjson::dom::element object(simdjson::dom::parser& parser, const std::string& json) {
  simdjson::dom::element e;
  REQUIRE(parser.parse(json).get(e) == simdjson::SUCCESS);
  return e;
}

const char* const kTrainerCrd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"trainers.wmtest.example.com"},
  "spec":{"group":"wmtest.example.com","scope":"Namespaced",
    "names":{"kind":"Trainer","plural":"trainers","singular":"trainer","listKind":"TrainerList"},
    "versions":[{"name":"v1","served":true,"storage":true,
      "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

std::string trainer_karta(const std::string& replicas_path) {
  return R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: wmtest-trainer
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: wmtest.example.com, version: v1, kind: Trainer}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: ')" +
         replicas_path + R"('
      statusDefinition:
        conditionsDefinition:
          path: .status.conditions
        statusMappings:
          running:
          - byConditions:
            - {type: Ready, status: "True"}
)";
}

const char* const kTrainer = R"({"apiVersion":"wmtest.example.com/v1","kind":"Trainer","metadata":{"name":"t"},
  "spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"c","image":"busybox",
    "resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}}})";

// What a server-side dry run of a Trainer comes back as: the webhook's edits, if the API server sent it there.
std::string dry_run_pods(const std::string& ns) {
  CommandResult r = Cluster::get().kubectl({"create", "--dry-run=server", "-n", ns, "-o", "json", "-f", "-"}, kTrainer);
  if (r.status != 0) return "error: " + r.err;
  simdjson::dom::parser parser;
  const std::string pods = string_at(object(parser, r.out), "/metadata/annotations/workload-map.io~1pods");
  return pods == "<missing>" ? "" : pods;
}

std::string accepted_condition(simdjson::dom::parser& parser, std::string& message) {
  CommandResult r = Cluster::get().kubectl({"get", "karta", "wmtest-trainer", "-o", "json"});
  if (r.status != 0) return "";
  simdjson::dom::array conditions;
  if (object(parser, r.out).at_pointer("/status/conditions").get_array().get(conditions)) return "";
  for (auto c : conditions)
    if (string_at(c, "/type") == "workload-map.io/Accepted") {
      message = string_at(c, "/message");
      return string_at(c, "/status");
    }
  return "";
}

std::string profile_policy(const std::string& profile) {
  return policy_with_rules("- name: all\n  namespaces: [\"*\"]\n  kinds: [\"*\"]\n  profile: " + profile +
                           "\n  queue: {default: research}\n");
}

// The Events of one object with this reason and type, as `kubectl describe` finds them: "TYPE COUNT MESSAGE" lines.
std::string events_of(const std::string& ns, const std::string& kind, const std::string& name,
                      const std::string& reason) {
  CommandResult r =
      Cluster::get().kubectl({"get", "events", "-n", ns, "--field-selector",
                              "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason,
                              "-o", "jsonpath={range .items[*]}{.type} {.count} {.message}{\"\\n\"}{end}"});
  return r.status == 0 ? r.out : "";
}

}  // namespace

TEST_CASE("the catalog installs as Karta objects the real Karta CRD accepts field for field") {
  CommandResult r =
      Cluster::get().kubectl({"apply", "-k", source_path("definitions"), "--dry-run=server", "--validate=strict"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.err.find("unknown field") == std::string::npos);
  // One line per Karta: every resource the Kustomization lists.
  const std::string kustomization = read_file(source_path("definitions/Kustomization"));
  long resources = 0;
  for (size_t at = 0; (at = kustomization.find("\n- ", at)) != std::string::npos; ++at) ++resources;
  CHECK(resources >= 28);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == resources);
}

TEST_CASE(
    "a Karta applied with kubectl makes the running webhook admit its CRD and a broken one is refused in its status "
    "while the last good one stays in force") {
  const Cluster& c = Cluster::get();
  // A CRD still being deleted (by an earlier run) would be served again only once it is gone.
  c.kubectl({"delete", "crd", "trainers.wmtest.example.com", "--ignore-not-found", "--wait=true"});
  REQUIRE(c.kubectl({"apply", "-f", "-"}, kTrainerCrd).status == 0);
  REQUIRE(c.kubectl({"wait", "--for=condition=Established", "crd/trainers.wmtest.example.com"}).status == 0);
  c.kubectl({"delete", "karta", "wmtest-trainer", "--ignore-not-found"});
  const std::string ns = make_namespace("karta");
  RegisteredWebhook webhook(profile_policy("kai"), "base", cluster_args(service_account_kubeconfig()));
  REQUIRE(eventually([&] { return ready(webhook.server().port()); }, std::chrono::seconds(20)));
  CHECK(eventually([&] { return dry_run_pods(ns).empty(); }, std::chrono::seconds(10)));  // unknown: not edited

  const auto applied_at = Clock::now();
  CommandResult applied = c.kubectl({"apply", "-f", "-"}, trainer_karta(".spec.replicas // 1"));
  INFO(applied.err);
  REQUIRE(applied.status == 0);
  std::string pods;
  const bool admitted = eventually([&] { return (pods = dry_run_pods(ns)) == "3"; }, std::chrono::seconds(30),
                                   std::chrono::milliseconds(50));
  INFO(pods << "\n" << webhook.server().log());
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - applied_at).count();
  std::cout << "figure: kubectl apply of a Karta to the first admission that uses it: " << ms << " ms\n";
  REQUIRE(admitted);
  // The leader routed the new kind to the webhook, and says so on the webhook configuration.
  CHECK(eventually(
      [&] {
        return events_of("default", "MutatingWebhookConfiguration", "workload-map", "RulesAdded")
                   .find("trainers.wmtest.example.com") != std::string::npos;
      },
      std::chrono::seconds(10)));

  simdjson::dom::parser parser;
  std::string message;
  CHECK(eventually([&] { return accepted_condition(parser, message) == "True"; }, std::chrono::seconds(10)));
  CHECK(message == "in force: Trainer.wmtest.example.com/v1");
  // The leader says so in an Event too (a cluster-scoped object's go to default).
  CHECK(eventually([&] { return !events_of("default", "Karta", "wmtest-trainer", "Accepted").empty(); },
                   std::chrono::seconds(10)));
  CHECK(events_of("default", "Karta", "wmtest-trainer", "Accepted").rfind("Normal 1 in force: Trainer", 0) == 0);

  // A broken generation: refused in the status with what lint says; the accepted one keeps admitting.
  REQUIRE(c.kubectl({"apply", "-f", "-"}, trainer_karta(".spec.replicas |")).status == 0);
  CHECK(eventually([&] { return accepted_condition(parser, message) == "False"; }, std::chrono::seconds(10)));
  INFO(message);
  CHECK(message.find("Karta wmtest-trainer") != std::string::npos);
  CHECK(message.find("spec.structureDefinition.rootComponent.scaleDefinition.replicasPath") != std::string::npos);
  CHECK(message.find("The last accepted generation (1) stays in force.") != std::string::npos);
  CHECK(
      eventually([&] { return events_of("default", "Karta", "wmtest-trainer", "Invalid").rfind("Warning 1 ", 0) == 0; },
                 std::chrono::seconds(10)));
  CHECK(dry_run_pods(ns) == "3");
  CHECK(metric(webhook.server().port(), "workload_map_kartas{state=\"refused\"}") == 1);

  // Deleted: the kind is no longer known.
  REQUIRE(c.kubectl({"delete", "karta", "wmtest-trainer"}).status == 0);
  CHECK(eventually([&] { return dry_run_pods(ns).empty(); }, std::chrono::seconds(10)));
  c.kubectl({"delete", "crd", "trainers.wmtest.example.com", "--wait=false"});
}

TEST_CASE(
    "Volcano and coscheduling: a JobSet gets its PodGroup, named as its pods name it, owned and collected and a "
    "PyTorchJob's follows its scale") {
  const Cluster& c = Cluster::get();
  for (const auto& [profile, resource, name_path] :
       {std::tuple<std::string, std::string, std::string>{"volcano", "podgroups.scheduling.volcano.sh",
                                                          "/metadata/annotations/scheduling.k8s.io~1group-name"},
        {"coscheduling", "podgroups.scheduling.x-k8s.io", "/metadata/labels/scheduling.x-k8s.io~1pod-group"}}) {
    INFO(profile);
    const std::string ns = make_namespace(profile == "volcano" ? "vc" : "co", true);
    RegisteredWebhook webhook(profile_policy(profile), "base", cluster_args(service_account_kubeconfig()));
    CommandResult created = c.kubectl({"create", "-n", ns, "-o", "json", "-f", "-"}, R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
)");
    INFO(created.err);
    REQUIRE(created.status == 0);
    simdjson::dom::parser parser;
    const std::string uid = string_at(object(parser, created.out), "/metadata/uid");

    std::string pod_group;
    REQUIRE(eventually(
        [&] {
          CommandResult r = c.kubectl({"get", resource, "train", "-n", ns, "-o", "json"});
          pod_group = r.out;
          return r.status == 0;
        },
        std::chrono::seconds(20)));
    simdjson::dom::element pg = object(parser, pod_group);
    // KAI's and the minimum rule: the leader's 1 pod and 2 worker jobs × min(parallelism, completions) 2.
    CHECK(pg.at_pointer("/spec/minMember").get_int64().value() == 5);
    CHECK(string_at(pg, "/spec/minResources/cpu") == "9");
    CHECK(string_at(pg, "/metadata/ownerReferences/0/uid") == uid);
    CHECK(string_at(pg, "/metadata/ownerReferences/0/kind") == "JobSet");
    if (profile == "volcano") CHECK(string_at(pg, "/spec/queue") == "research");
    // `kubectl describe jobset train` says where its PodGroup came from.
    CHECK(eventually(
        [&] { return events_of(ns, "JobSet", "train", "PodGroupCreated") == "Normal 1 created podgroup/train\n"; },
        std::chrono::seconds(10)));

    // Every pod the JobSet's Jobs make names it.
    CHECK(eventually(
        [&] {
          CommandResult r = c.kubectl({"get", "pods", "-n", ns, "-o", "json"});
          simdjson::dom::parser p;
          simdjson::dom::array pods;
          if (r.status != 0 || object(p, r.out)["items"].get_array().get(pods)) return false;
          size_t named = 0, all = 0;
          for (auto pod : pods) {
            ++all;
            named += string_at(pod, name_path) == "train";
          }
          return all == 5 && named == 5;
        },
        std::chrono::seconds(30)));

    // Scale: a PyTorchJob's workers go from 2 to 3 (a JobSet's replicatedJobs are immutable).
    REQUIRE(c.kubectl({"create", "-n", ns, "-f", "-"}, R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
      "metadata":{"name":"pt"},"spec":{"pytorchReplicaSpecs":{
        "Master":{"replicas":1,"template":{"spec":{"containers":[{"name":"pytorch","image":"busybox"}]}}},
        "Worker":{"replicas":2,"template":{"spec":{"containers":[{"name":"pytorch","image":"busybox"}]}}}}}})")
                .status == 0);
    auto min_member = [&](const std::string& name) {
      CommandResult r = c.kubectl({"get", resource, name, "-n", ns, "-o", "jsonpath={.spec.minMember}"});
      return r.status == 0 ? r.out : "";
    };
    CHECK(eventually([&] { return min_member("pt") == "3"; }, std::chrono::seconds(20)));
    REQUIRE(c.kubectl({"patch", "pytorchjob", "pt", "-n", ns, "--type=merge", "-p",
                       R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":3}}}})"})
                .status == 0);
    CHECK(eventually([&] { return min_member("pt") == "4"; }, std::chrono::seconds(20)));
    CHECK(eventually(
        [&] { return events_of(ns, "PyTorchJob", "pt", "PodGroupUpdated") == "Normal 1 updated podgroup/pt\n"; },
        std::chrono::seconds(10)));

    // Deleted: the garbage collector takes the PodGroup with it.
    REQUIRE(c.kubectl({"delete", "jobset", "train", "-n", ns, "--wait=false"}).status == 0);
    CHECK(eventually(
        [&] {
          return c.kubectl({"get", resource, "train", "-n", ns}).status != 0;
        },
        std::chrono::seconds(30)));
    CHECK(metric(webhook.server().port(), "workload_map_leader") == 1);
  }
}

TEST_CASE("two replicas: one leads, both admit and the other leads once the first stops") {
  const std::string kubeconfig = service_account_kubeconfig();
  const std::string policy = profile_policy("kai");
  RegisteredWebhook first(policy, "base", cluster_args(kubeconfig, "replica-a"));
  ServerProcess second(
      {"--policy", write_temp("replica-b-policy.yaml", policy), "--kubeconfig", kubeconfig, "--identity", "replica-b"});
  auto leaders = [&] {
    return metric(first.server().port(), "workload_map_leader") + metric(second.port(), "workload_map_leader");
  };
  REQUIRE(eventually([&] { return leaders() == 1; }, std::chrono::seconds(20)));
  const bool first_leads = metric(first.server().port(), "workload_map_leader") == 1;
  CHECK(eventually([&] { return ready(first.server().port()) && ready(second.port()); }, std::chrono::seconds(10)));
  if (first_leads) {
    REQUIRE(first.server().stop() == 0);
  } else {
    REQUIRE(second.stop() == 0);
  }
  // The leader gives the Lease up as it stops: the other takes it within a retry period, not a lease duration.
  const auto stopped_at = Clock::now();
  const uint16_t survivor = first_leads ? second.port() : first.server().port();
  REQUIRE(eventually([&] { return metric(survivor, "workload_map_leader") == 1; }, std::chrono::seconds(20)));
  std::cout << "figure: leadership moved in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stopped_at).count() << " ms\n";
}

TEST_CASE("with the API server gone, admission is as fast as before and /metrics says what is stale") {
  const Cluster& c = Cluster::get();
  std::string host, port;
  {
    const std::string server = kubeconfig_value(".clusters[0].cluster.server");
    std::smatch m;
    REQUIRE(std::regex_match(server, m, std::regex("https://([0-9.]+):([0-9]+)")));
    host = m[1];
    port = m[2];
  }
  TcpProxy proxy(host, static_cast<uint16_t>(std::stoi(port)));
  const std::string kubeconfig = service_account_kubeconfig("https://127.0.0.1:" + std::to_string(proxy.port()));
  ServerProcess server({"--policy", write_temp("outage-policy.yaml", profile_policy("volcano")), "--kubeconfig",
                        kubeconfig, "--identity", "outage"});
  REQUIRE(eventually([&] { return ready(server.port()); }, std::chrono::seconds(20)));
  const std::string jobset = read_file(corpus_dir() + "/jobset/coordinator.yaml");
  const auto objects = parse_yaml(jobset, "coordinator.yaml");
  REQUIRE(!objects.empty());
  const std::string review = admission_review(simdjson::to_string(objects.front().root), "default");
  auto latencies = [&] {
    HttpsClient client(server.port());
    std::vector<double> ms;
    for (int i = 0; i < 400; ++i) {
      const auto t = Clock::now();
      HttpResponse r = client.post("/mutate", review);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      REQUIRE(r.status == 200);
    }
    std::sort(ms.begin(), ms.end());
    return std::pair{ms[ms.size() / 2], ms[ms.size() * 99 / 100]};
  };
  const auto [up_median, up_p99] = latencies();
  CHECK(metric(server.port(), "workload_map_watch_up{resource=\"kartas.run.ai\"}") == 1);

  proxy.cut();
  REQUIRE(eventually([&] { return metric(server.port(), "workload_map_watch_up{resource=\"kartas.run.ai\"}") == 0; },
                     std::chrono::seconds(10)));
  const auto [down_median, down_p99] = latencies();
  std::cout << "figure: /mutate latency (JobSet, 400 requests, one connection) with the API server up: median "
            << up_median << " ms, p99 " << up_p99 << " ms; gone: median " << down_median << " ms, p99 " << down_p99
            << " ms\n";
  CHECK(down_p99 < std::max(5 * up_p99, 25.0));
  CHECK(ready(server.port()));  // the last good definitions stay in force
  CHECK(eventually(
      [&] { return metric(server.port(), "workload_map_watch_up{resource=\"jobsets.jobset.x-k8s.io\"}") == 0; },
      std::chrono::seconds(10)));
  CHECK(server.log().find("Karta watch failed; definitions from the cluster may be stale") != std::string::npos);

  // Back: the watches come back by themselves (after their back-off), and see what changed meanwhile.
  c.kubectl({"delete", "karta", "wmtest-outage", "--ignore-not-found"});
  REQUIRE(c.kubectl({"apply", "-f", "-"}, R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: wmtest-outage}
spec:
  structureDefinition:
    rootComponent:
      name: broken
      kind: {group: wmtest.example.com, version: v1, kind: Outage}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: '.spec.replicas |'}
      statusDefinition:
        statusMappings:
          running: [{byPhase: Running}]
)")
              .status == 0);
  proxy.restore();
  CHECK(eventually([&] { return metric(server.port(), "workload_map_watch_up{resource=\"kartas.run.ai\"}") == 1; },
                   std::chrono::seconds(40)));
  CHECK(eventually([&] { return metric(server.port(), "workload_map_kartas{state=\"refused\"}") == 1; },
                   std::chrono::seconds(10)));
  CHECK(eventually(
      [&] { return metric(server.port(), "workload_map_watch_up{resource=\"jobsets.jobset.x-k8s.io\"}") == 1; },
      std::chrono::seconds(40)));
  c.kubectl({"delete", "karta", "wmtest-outage"});
}

// A TrainJob's pods come from the ClusterTrainingRuntime it names (Kubeflow Trainer's real CRDs, from its release):
// the cluster side watches runtimes into memory, so admission counts the TrainJob by them without asking the API
// server, and a runtime it has not seen makes the TrainJob not understood (admitted under Ignore, with a warning that
// names the runtime).
TEST_CASE("a TrainJob is counted by the ClusterTrainingRuntime the cluster side holds, and not understood without it") {
  const Cluster& cluster = Cluster::get();
  const std::string ns = make_namespace("trainjob");
  RegisteredWebhook webhook(gpu_limit_policy(2), "base", cluster_args(service_account_kubeconfig()));
  const std::string runtime = write_temp("gpu-runtime.yaml", R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: wm-gpu-torch}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: pytorch/pytorch
                  resources: {limits: {nvidia.com/gpu: 1}}
)");
  const std::string train_job = write_temp("train-job.yaml", R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: )" + ns + R"(}
spec:
  runtimeRef: {name: wm-gpu-torch}
  trainer: {numNodes: 4}
)");
  cluster.kubectl({"delete", "clustertrainingruntime", "wm-gpu-torch", "--ignore-not-found"});

  CommandResult unknown = cluster.kubectl({"create", "--dry-run=server", "-f", train_job});
  INFO(unknown.out << unknown.err);
  CHECK(unknown.status == 0);
  CHECK(unknown.err.find("ClusterTrainingRuntime wm-gpu-torch (trainer.kubeflow.org) is not known") !=
        std::string::npos);

  REQUIRE(cluster.kubectl({"apply", "-f", runtime}).status == 0);
  CommandResult refused;
  const bool counted = eventually(
      [&] {
        refused = cluster.kubectl({"create", "--dry-run=server", "-f", train_job});
        return refused.status != 0;
      },
      std::chrono::seconds(20));
  INFO(refused.out << refused.err);
  REQUIRE(counted);
  CHECK(refused.err.find("TrainJob " + ns + "/tj asks for 4 nvidia.com/gpu across 4 pods") != std::string::npos);

  // Within the limit: admitted, with the kai profile's pod label in workload-map's runtimePatches entry, which the
  // real TrainJob CRD (Trainer v2.2) keeps.
  CommandResult created =
      cluster.kubectl({"create", "-f", write_temp("train-job-2.yaml", R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj2, namespace: )" + ns + R"(}
spec:
  runtimeRef: {name: wm-gpu-torch}
  trainer: {numNodes: 2}
)")});
  INFO(created.err);
  REQUIRE(created.status == 0);
  simdjson::dom::parser parser;
  auto stored = cluster.get_json(parser, {"get", "trainjob", "tj2", "-n", ns});
  const std::string job = "/spec/runtimePatches/0/trainingRuntimeSpec/template/spec/replicatedJobs/0";
  const std::pair<std::string, std::string> expected[] = {
      {"/metadata/labels/kai.scheduler~1queue", "team-a"},
      {"/spec/runtimePatches/0/manager", "workload-map.io/manager"},
      {job + "/name", "node"},
      {job + "/template/spec/template/metadata/labels/kai.scheduler~1queue", "team-a"}};
  for (const auto& [pointer, value] : expected) CHECK(string_at(stored, pointer) == value);

  REQUIRE(cluster.kubectl({"delete", "clustertrainingruntime", "wm-gpu-torch"}).status == 0);
  CHECK(eventually(
      [&] {
        return cluster.kubectl({"create", "--dry-run=server", "-f", train_job}).status == 0;
      },
      std::chrono::seconds(20)));
}

// GPUs through DRA claims (issue 37): the ResourceClaimTemplate a Deployment's pods name is watched into memory under
// the shipped RBAC, so admission counts the template's devices against the limit without asking the API server; a
// template not seen yet cannot be counted, so under a GPU limit it is refused rather than let past; and a template
// replaced by one of more devices is seen.
TEST_CASE("a Deployment's GPUs through a DRA claim template are counted against the limit, as the template changes") {
  const Cluster& cluster = Cluster::get();
  const std::string ns = make_namespace("dra");
  RegisteredWebhook webhook(gpu_limit_policy(2), "base", cluster_args(service_account_kubeconfig()));
  auto template_of = [&](int count) {
    return write_temp("claim-template.yaml", R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpus, namespace: )" + ns + R"(}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: )" +
                                                 std::to_string(count) + "}\n");
  };
  auto deployment = [&](int replicas) {
    return write_temp("dra-deployment.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: )" + ns + R"(}
spec:
  replicas: )" + std::to_string(replicas) +
                                                 R"(
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      containers:
      - name: server
        image: vllm/vllm-openai
        resources: {claims: [{name: gpu}]}
      resourceClaims:
      - {name: gpu, resourceClaimTemplateName: gpus}
)");
  };
  auto dry_run = [&](int replicas) {
    return cluster.kubectl({"create", "--dry-run=server", "-f", deployment(replicas)});
  };

  // Not seen yet: its devices could be GPUs, so the 2-GPU limit refuses them, and says why.
  CommandResult unknown;
  REQUIRE(eventually(
      [&] {
        unknown = dry_run(1);
        return unknown.err.find("not known to workload-map yet") != std::string::npos;
      },
      std::chrono::seconds(20)));
  INFO(unknown.err);
  CHECK(unknown.status != 0);
  CHECK(unknown.err.find("claim gpu (ResourceClaimTemplate " + ns + "/gpus)") != std::string::npos);
  CHECK(unknown.err.find("cannot be held to the limit for namespace " + ns + " on nvidia.com/gpu") !=
        std::string::npos);

  REQUIRE(cluster.kubectl({"apply", "-f", template_of(1)}).status == 0);
  CommandResult admitted;
  REQUIRE(eventually(
      [&] {
        admitted = dry_run(2);
        return admitted.status == 0;
      },
      std::chrono::seconds(20)));
  CommandResult refused = dry_run(4);
  INFO(refused.err);
  CHECK(refused.status != 0);
  CHECK(refused.err.find("Deployment " + ns + "/llm asks for 4 nvidia.com/gpu across 4 pods") != std::string::npos);

  // A template's spec is immutable: replaced by one of two devices a claim, the same 2 pods ask for 4 GPUs.
  REQUIRE(cluster.kubectl({"delete", "resourceclaimtemplate", "gpus", "-n", ns}).status == 0);
  REQUIRE(cluster.kubectl({"apply", "-f", template_of(2)}).status == 0);
  CommandResult doubled;
  CHECK(eventually(
      [&] {
        doubled = dry_run(2);
        return doubled.err.find("asks for 4 nvidia.com/gpu across 2 pods") != std::string::npos;
      },
      std::chrono::seconds(20)));
  INFO(doubled.err);
}

// The native profile on a cluster without Kubernetes' own PodGroups (this bed runs without the GenericWorkload gate,
// so scheduling.k8s.io/v1beta1 is not served): never a silent no-op. The cluster side finds the kind not served, and a
// JobSet is admitted with a warning that names the API it lacks.
TEST_CASE(
    "under the native profile without the GenericWorkload gate, a JobSet is admitted with a warning naming the API") {
  const Cluster& cluster = Cluster::get();
  const std::string ns = make_namespace("native-off");
  RegisteredWebhook webhook(profile_policy("native"), "base", cluster_args(service_account_kubeconfig()));
  const std::string jobset = write_temp("native-jobset.yaml", R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: )" + ns + R"(}
spec:
  replicatedJobs:
  - name: workers
    replicas: 5
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 4}}}]
)");
  CommandResult admitted;
  const bool warned = eventually(
      [&] {
        admitted = cluster.kubectl({"create", "--dry-run=server", "-f", jobset});
        return admitted.status == 0 &&
               admitted.err.find("does not serve scheduling.k8s.io/v1beta1 PodGroup") != std::string::npos;
      },
      std::chrono::seconds(30));
  INFO(admitted.out << admitted.err);
  CHECK(warned);
  CHECK(admitted.err.find("JobSet " + ns + "/train gets no gang") != std::string::npos);
  // Created, it gets an Event that names the API it lacks, where `kubectl describe` shows it.
  REQUIRE(cluster.kubectl({"create", "-f", jobset}).status == 0);
  std::string events;
  const bool said = eventually(
      [&] {
        events = events_of(ns, "JobSet", "train", "PodGroupFailed");
        return events.find("/apis/scheduling.k8s.io/v1beta1") != std::string::npos;
      },
      std::chrono::seconds(30));
  INFO(events);
  CHECK(said);
}
