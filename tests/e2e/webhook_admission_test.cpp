// The promises of the webhook, against the real server binary over real TLS.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"
#include "mapper/view/gangs.h"
#include "mapper/view/workload_view.h"
#include "tests/e2e/webhook_test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

std::string label_pointer(const std::optional<std::string>& map, const std::string& key) {
  REQUIRE(map.has_value());
  return json::pointer_child(*map, key);
}

}  // namespace

TEST_CASE("every corpus workload, sent as an AdmissionReview, comes back with a patch kubectl applies") {
  if (!have_command("kubectl")) {
    WARN("kubectl is not installed: skipped");
    return;
  }
  YAML::Node expectations = YAML::LoadFile(source_path("tests/fixtures/corpus_expectations.yaml"));
  ServerProcess server;
  HttpsClient client(server.port());  // one kept-alive connection for the whole corpus
  int n = 0;
  for (const auto& file : corpus_files()) {
    size_t index = 0;
    for (auto& object : parse_file(corpus_dir() + "/" + file)) {
      auto match = builtin_catalog().find(object.api_version, object.kind);
      const std::string json = json::element_json(object.root);
      const std::string uid = "uid-" + std::to_string(++n);
      auto res = client.post("/mutate", admission_review(json, "team-a", "CREATE", uid));
      INFO(file << " " << object.kind << " " << object.name);
      REQUIRE(res.status == 200);
      MutateAnswer answer = parse_answer(res.body);
      CHECK(answer.uid == uid);
      CHECK(answer.allowed);
      if (!match.definition) {  // a ConfigMap beside the workload: untouched
        CHECK(answer.patch.empty());
        continue;
      }
      YAML::Node expected = expectations[file][index++];
      // The built-in policy's kai profile: KAI's own count where the expectations name one.
      long long gang = (expected["kaiGang"] ? expected["kaiGang"]
                        : expected["gang"]  ? expected["gang"]
                                            : expected["pods"])
                           .as<long long>();
      if (file == "jobset/batch_v1alpha2_jobset.yaml") {  // empty spec: not understood, let through
        CHECK(answer.patch.empty());
        CHECK_THAT(answer.warnings, Catch::Contains("cannot understand"));
        continue;
      }
      REQUIRE_FALSE(answer.patch.empty());
      auto patched = parse_json(kubectl_apply(json, answer.patch));
      view::WorkloadView after = view::build_view(*match.definition, *patched.doc, {.catalog = &builtin_catalog()});
      for (const auto& c : after.components)
        for (const auto& i : c.instances) {
          if (i.shape == view::PodShape::Logical) continue;
          INFO("component " << c.name << " instance " << i.id);
          if (!i.fields.scheduler_name && !i.fields.labels && !i.fields.annotations) {  // NIMCache: no pod fields
            CHECK_THAT(answer.warnings, Catch::Contains("instance " + i.id + ": pods not edited"));
            continue;
          }
          REQUIRE(i.fields.scheduler_name);
          CHECK(string_at(patched.root, *i.fields.scheduler_name) == "kai-scheduler");
          CHECK(string_at(patched.root, label_pointer(i.fields.labels, "kai.scheduler/queue")) == "default-queue");
        }
      CHECK(string_at(patched.root, "/metadata/annotations/workload-map.io~1gang-size") == std::to_string(gang));
      CHECK(string_at(patched.root, "/metadata/labels/kai.scheduler~1queue") == "default-queue");
    }
  }
  CHECK(n >= 60);
}

namespace {

struct Expectation {
  const char* where;  // pod-label, pod-annotation, workload-label
  const char* key;
  std::string value;  // {group} (the gang's name as its pods carry it), {component} and {instance} are replaced
};

struct ProfileCase {
  const char* profile;
  const char* scheduler;  // nullptr: the profile sets none
  std::vector<Expectation> expect;
};

std::string fill(std::string v, const std::string& group, const std::string& component, const std::string& instance) {
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"{group}", group}, {"{component}", component}, {"{instance}", instance}})
    if (auto at = v.find(from); at != std::string::npos) v.replace(at, from.size(), to);
  return v;
}

}  // namespace

TEST_CASE("each scheduler profile on a JobSet, a PyTorchJob and a LeaderWorkerSet") {
  if (!have_command("kubectl")) {
    WARN("kubectl is not installed: skipped");
    return;
  }
  const std::vector<ProfileCase> cases = {
      {"kai",
       "kai-scheduler",
       {{"pod-label", "kai.scheduler/queue", "q1"}, {"workload-label", "kai.scheduler/queue", "q1"}}},
      {"volcano",
       "volcano",
       {{"pod-annotation", "scheduling.k8s.io/group-name", "{group}"},
        {"pod-annotation", "scheduling.volcano.sh/queue-name", "q1"}}},
      {"coscheduling", "scheduler-plugins-scheduler", {{"pod-label", "scheduling.x-k8s.io/pod-group", "{group}"}}},
      {"kueue", nullptr, {{"workload-label", "kueue.x-k8s.io/queue-name", "q1"}}},
      {"yunikorn",
       "yunikorn",
       {{"pod-label", "yunikorn.apache.org/app-id", "{group}"},
        {"pod-label", "yunikorn.apache.org/queue", "q1"},
        {"pod-annotation", "yunikorn.apache.org/task-group-name", "{instance}"}}},
  };
  const std::vector<std::string> workloads = {source_path("examples/jobset-12-gpus.yaml"),
                                              corpus_dir() + "/pytorchjob/pytorch_job_mnist_nccl.yaml",
                                              corpus_dir() + "/leaderworkerset/sample-lws.yaml"};
  for (const auto& c : cases) {
    DYNAMIC_SECTION("profile " << c.profile) {
      std::string policy = write_temp(
          std::string("policy-") + c.profile + ".yaml",
          policy_with_rules(std::string("- name: all\n  profile: ") + c.profile + "\n  queue: {value: q1}\n"));
      ServerProcess server({"--policy", policy});
      HttpsClient client(server.port());
      for (const auto& file : workloads) {
        auto object = std::move(parse_file(file).front());
        INFO(c.profile << " on " << object.kind << " " << object.name);
        auto answer =
            parse_answer(client.post("/mutate", admission_review(json::element_json(object.root), "ns1")).body);
        REQUIRE(answer.allowed);
        auto patched = parse_json(kubectl_apply(json::element_json(object.root), answer.patch));
        auto match = builtin_catalog().find(patched.api_version, patched.kind);
        view::WorkloadView after = view::build_view(*match.definition, *patched.doc, {.catalog = &builtin_catalog()});
        // Volcano leaves LeaderWorkerSet groups to LWS's own integration (policy.yaml): the queue on the LWS,
        // no group name on its shared templates.
        const bool handed_to_lws = std::string(c.profile) == "volcano" && object.kind == "LeaderWorkerSet";
        if (handed_to_lws)
          CHECK(string_at(patched.root, "/metadata/annotations/scheduling.volcano.sh~1queue-name") == "q1");
        // Components that share a pod template (a LeaderWorkerSet leader without its own) get the
        // values of the last of them.
        std::map<std::string, std::string> last_component, last_instance;
        for (const auto& comp : after.components)
          for (const auto& i : comp.instances) {
            last_component[i.location] = comp.name;
            last_instance[i.location] = i.id;
          }
        for (const auto& comp : after.components)
          for (const auto& i : comp.instances) {
            if (i.shape == view::PodShape::Logical) continue;
            INFO("component " << comp.name << " instance " << i.id);
            CHECK(string_at(patched.root, *i.fields.scheduler_name) == (c.scheduler ? c.scheduler : "<missing>"));
            if (handed_to_lws) {
              CHECK(string_at(patched.root, label_pointer(i.fields.annotations, "scheduling.k8s.io/group-name")) ==
                    "<missing>");
              continue;
            }
            for (const auto& e : c.expect) {
              std::string where = e.where;
              std::string expected = fill(e.value, view::gang_object_name(object.name, after.gangs, after.gangs.at(0)),
                                          last_component[i.location], last_instance[i.location]);
              if (where == "pod-label")
                CHECK(string_at(patched.root, label_pointer(i.fields.labels, e.key)) == expected);
              else if (where == "pod-annotation")
                CHECK(string_at(patched.root, label_pointer(i.fields.annotations, e.key)) == expected);
            }
            // A gang repeated per replica (the LeaderWorkerSet's groups) tells each pod's admission how to name its
            // copy, when the profile names gangs on pods.
            const bool names_copies = after.gangs.at(0).replica_key_path.size() &&
                                      std::any_of(c.expect.begin(), c.expect.end(),
                                                  [](const Expectation& e) { return e.value == "{group}"; });
            CHECK(string_at(patched.root, label_pointer(i.fields.annotations, "workload-map.io/replica-gang")) ==
                  (names_copies ? view::gang_object_name(object.name, after.gangs, after.gangs.at(0)) : "<missing>"));
          }
        for (const auto& e : c.expect)
          if (std::string(e.where) == "workload-label")
            CHECK(string_at(patched.root, json::pointer_child("/metadata/labels", e.key)) == e.value);
        CHECK(string_at(patched.root, "/metadata/annotations/workload-map.io~1gang-size") ==
              std::to_string(after.gangs.at(0).min_member));
      }
    }
  }
}

TEST_CASE("Kueue's plain-pod groups: a Pod gets the pod-group name label and the total-count annotation") {
  if (!have_command("kubectl")) return;
  std::string policy =
      write_temp("policy-kueue-pod.yaml", policy_with_rules("- name: all\n  profile: kueue\n  queue: {value: lq}\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  const std::string pod =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo"},"spec":{"containers":[{"name":"c","image":"i"}]}})";
  auto answer = parse_answer(client.post("/mutate", admission_review(pod, "ns1")).body);
  auto patched = parse_json(kubectl_apply(pod, answer.patch));
  CHECK(string_at(patched.root, "/metadata/labels/kueue.x-k8s.io~1pod-group-name") == "solo");
  CHECK(string_at(patched.root, "/metadata/labels/kueue.x-k8s.io~1queue-name") == "lq");
  CHECK(string_at(patched.root, "/metadata/annotations/kueue.x-k8s.io~1pod-group-total-count") == "1");
}

TEST_CASE("Kueue: a Pod an unknown controller owns keeps the queue label but joins no pod group") {
  if (!have_command("kubectl")) return;
  std::string policy =
      write_temp("policy-kueue-owned.yaml", policy_with_rules("- name: all\n  profile: kueue\n  queue: {value: lq}\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  const std::string pod =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"worker-0","ownerReferences":[{"apiVersion":"example.com/v1","kind":"Trainer","name":"t","uid":"u1","controller":true}]},"spec":{"containers":[{"name":"c","image":"i"}]}})";
  auto answer = parse_answer(client.post("/mutate", admission_review(pod, "ns1")).body);
  auto patched = parse_json(kubectl_apply(pod, answer.patch));
  CHECK(string_at(patched.root, "/metadata/labels/kueue.x-k8s.io~1queue-name") == "lq");
  CHECK(string_at(patched.root, "/metadata/labels/kueue.x-k8s.io~1pod-group-name") == "<missing>");
  CHECK(string_at(patched.root, "/metadata/annotations/kueue.x-k8s.io~1pod-group-total-count") == "<missing>");
}

TEST_CASE("YuniKorn: every pod names its task group and carries the same task-group list") {
  if (!have_command("kubectl")) return;
  std::string policy = write_temp("policy-yunikorn.yaml",
                                  policy_with_rules("- name: all\n  profile: yunikorn\n  queue: {value: root.a}\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  // A RayCluster: the head, an autoscaled worker group whose minimum is 2 of 5 replicas, with a node selector, and one
  // whose minimum is 0: YuniKorn refuses a task group of minMember 0 (and the app's whole gang with it), so it has
  // none, while its pods still name their group.
  const std::string ray = R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"rc"},"spec":{
    "enableInTreeAutoscaling":true,
    "headGroupSpec":{"template":{"spec":{"containers":[{"name":"h","image":"ray","resources":{"requests":{"cpu":"2"}}}]}}},
    "workerGroupSpecs":[{"groupName":"gpu","replicas":5,"minReplicas":2,"template":{"spec":{
      "nodeSelector":{"pool":"a100"},"tolerations":[{"key":"gpu","operator":"Exists"}],
      "containers":[{"name":"w","image":"ray","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}},
      {"groupName":"cpu","replicas":3,"minReplicas":0,"template":{"spec":{"containers":[{"name":"w","image":"ray"}]}}}]}})";
  auto answer = parse_answer(client.post("/mutate", admission_review(ray, "ns1")).body);
  auto patched = parse_json(kubectl_apply(ray, answer.patch));
  const std::string head = "/spec/headGroupSpec/template/metadata/annotations/",
                    worker = "/spec/workerGroupSpecs/0/template/metadata/annotations/";
  CHECK(string_at(patched.root, head + "yunikorn.apache.org~1task-group-name") == "head");
  CHECK(string_at(patched.root, worker + "yunikorn.apache.org~1task-group-name") == "gpu");
  CHECK(string_at(patched.root,
                  "/spec/workerGroupSpecs/1/template/metadata/annotations/yunikorn.apache.org~1task-group-name") ==
        "cpu");
  const std::string groups = string_at(patched.root, head + "yunikorn.apache.org~1task-groups");
  CHECK(groups == string_at(patched.root, worker + "yunikorn.apache.org~1task-groups"));
  CHECK(groups == R"([{"name":"head","minMember":1,"minResource":{"cpu":"2"},"nodeSelector":{},"tolerations":[]},)"
                  R"({"name":"gpu","minMember":2,"minResource":{"nvidia.com/gpu":"1"},"nodeSelector":{"pool":"a100"},)"
                  R"("tolerations":[{"key":"gpu","operator":"Exists"}]}])");
  CHECK(string_at(patched.root, "/spec/headGroupSpec/template/metadata/labels/yunikorn.apache.org~1app-id") == "rc");
  CHECK_THAT(string_at(patched.root, worker + "yunikorn.apache.org~1schedulingPolicyParameters"),
             Catch::Contains("gangSchedulingStyle=Soft"));
}

TEST_CASE("an object with only generateName gets a stable, unique group name from the request uid") {
  if (!have_command("kubectl")) return;
  std::string policy = write_temp("policy-cosched.yaml", policy_with_rules("- name: all\n  profile: coscheduling\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  const std::string job =
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"generateName":"Sweep-"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}})";
  auto a1 = parse_answer(client.post("/mutate", admission_review(job, "ns1", "CREATE", "7F3A-91bc-4d2e")).body);
  auto a2 = parse_answer(client.post("/mutate", admission_review(job, "ns1", "CREATE", "7F3A-91bc-4d2e")).body);
  auto a3 = parse_answer(client.post("/mutate", admission_review(job, "ns1", "CREATE", "0000-1111-2222")).body);
  CHECK(a1.patch == a2.patch);  // the same request, retried: the same name
  CHECK(a1.patch != a3.patch);
  auto patched = parse_json(kubectl_apply(job, a1.patch));
  CHECK(string_at(patched.root, "/spec/template/metadata/labels/scheduling.x-k8s.io~1pod-group") == "sweep-7f3a91bc");
  // Recorded for the PodGroup controller, and kept by a later update: the API server has named the object since.
  CHECK(string_at(patched.root, "/metadata/annotations/workload-map.io~1group-name") == "sweep-7f3a91bc");
  CHECK(string_at(patched.root, "/metadata/labels/workload-map.io~1profile") == "coscheduling");
}

TEST_CASE("an update keeps the gang name recorded at creation, and a user's own annotation decides nothing") {
  if (!have_command("kubectl")) return;
  std::string policy = write_temp("policy-cosched-update.yaml",
                                  policy_with_rules("- name: all\n  profile: coscheduling\n  mutateOnUpdate: true\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  const std::string stored =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-x7k2p","annotations":{"workload-map.io/group-name":"web-7f3a91bc"}},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"v1"}]}}}})";
  std::string updated = stored;
  updated.replace(updated.find("\"v1\""), 4, "\"v2\"");  // a new image: the template changes
  auto update = parse_answer(client.post("/mutate", admission_review(updated, "ns1", "UPDATE", "u-2", stored)).body);
  auto patched = parse_json(kubectl_apply(updated, update.patch));
  CHECK(string_at(patched.root, "/spec/template/metadata/labels/scheduling.x-k8s.io~1pod-group") == "web-7f3a91bc");
  // On a create there is nothing recorded yet: the annotation a user wrote is replaced by the webhook's decision.
  auto create = parse_answer(client.post("/mutate", admission_review(stored, "ns1", "CREATE", "u-3")).body);
  auto created = parse_json(kubectl_apply(stored, create.patch));
  CHECK(string_at(created.root, "/spec/template/metadata/labels/scheduling.x-k8s.io~1pod-group") == "web-x7k2p");
  CHECK(string_at(created.root, "/metadata/annotations/workload-map.io~1group-name") == "web-x7k2p");
}

TEST_CASE("validation refuses the 12-GPU JobSet under an 8-GPU limit and admits it under 16 (policy hot reload)") {
  auto limit_policy = [](int gpus) {
    return policy_with_rules(
        "- name: team-a\n  namespaces: [team-a]\n  profile: kai\n  queue: {value: q}\n"
        "  limits:\n    resources: {nvidia.com/gpu: " +
        std::to_string(gpus) + "}\n");
  };
  std::string policy = write_temp("policy-limits.yaml", limit_policy(8));
  ServerProcess server({"--policy", policy});
  auto object = std::move(parse_file(source_path("examples/jobset-12-gpus.yaml")).front());
  const std::string review = admission_review(json::element_json(object.root), "team-a", "CREATE", "v-1");

  auto denied = HttpsClient(server.port()).post("/validate", review);
  REQUIRE(denied.status == 200);
  simdjson::dom::parser parser;
  auto response = parser.parse(denied.body)["response"];
  CHECK(response["uid"].get_string().value() == "v-1");
  CHECK(response["allowed"].get_bool().value() == false);
  CHECK(response["status"]["code"].get_int64().value() == 403);
  CHECK(std::string(response["status"]["message"].get_string().value()) ==
        "JobSet team-a/train asks for 12 nvidia.com/gpu across 3 pods (leader 1\xC3\x97"
        "4, workers 2\xC3\x97"
        "4); the limit for namespace team-a is 8");

  std::ofstream(policy) << limit_policy(16);
  // The server checks its files every second. It logs the reload just after it swaps the policy in, so a
  // request may see the new limit a moment before the log line is written: wait for both.
  bool admitted = false;
  bool logged = false;
  for (int i = 0; i < 100 && !(admitted && logged); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto again = HttpsClient(server.port()).post("/validate", review);
    admitted = parser.parse(again.body)["response"]["allowed"].get_bool().value();
    logged = server.log().find("policy reloaded") != std::string::npos;
  }
  CHECK(admitted);
  CHECK_THAT(server.log(), Catch::Contains("policy reloaded"));
}

TEST_CASE("other validation limits: pods, queue, schedulers, GPU containers without requests") {
  std::string policy = write_temp(
      "policy-strict.yaml",
      policy_with_rules("- name: strict\n  profile: kai\n  queue: {fromLabel: kai.scheduler/queue}\n  limits:\n"
                        "    maxPods: 2\n    requireQueue: true\n    allowedSchedulers: [kai-scheduler]\n"
                        "    requireRequestsWithGPUs: true\n    forbidSchedulerOverride: true\n"));
  ServerProcess server({"--policy", policy});
  HttpsClient client(server.port());
  const std::string job =
      R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"j"},"spec":{"replicatedJobs":[{"name":"w","replicas":3,"template":{"spec":{"template":{"spec":{"schedulerName":"my-sched","containers":[{"name":"gpu","image":"i","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}}]}})";
  simdjson::dom::parser parser;
  auto res = client.post("/validate", admission_review(job, "ns1"));
  auto response = parser.parse(res.body)["response"];
  CHECK(response["allowed"].get_bool().value() == false);
  std::string message(response["status"]["message"].get_string().value());
  CHECK_THAT(message, Catch::Contains("JobSet ns1/j has 3 pods; the limit for namespace ns1 is 2 pods"));
  CHECK_THAT(message, Catch::Contains("names no queue: set the label kai.scheduler/queue on it"));
  CHECK_THAT(message, Catch::Contains("uses scheduler \"my-sched\"; allowed in namespace ns1: kai-scheduler"));
  CHECK_THAT(message, Catch::Contains("sets schedulerName \"my-sched\""));
  CHECK_THAT(message,
             Catch::Contains(
                 "container gpu in replicatedjob/w asks for GPUs in its limits but does not request cpu and memory"));
}

TEST_CASE("UPDATE is validated but not mutated, while DELETE and unknown kinds pass untouched") {
  ServerProcess server;
  HttpsClient client(server.port());
  auto object = std::move(parse_file(source_path("examples/jobset-12-gpus.yaml")).front());
  auto update =
      parse_answer(client.post("/mutate", admission_review(json::element_json(object.root), "team-a", "UPDATE")).body);
  CHECK(update.allowed);
  CHECK(update.patch.empty());
  auto del = parse_answer(client.post("/mutate", admission_review("null", "team-a", "DELETE")).body);
  CHECK(del.allowed);
  auto unknown = parse_answer(
      client
          .post("/mutate",
                admission_review(R"({"apiVersion":"example.com/v1","kind":"Gizmo","metadata":{"name":"g"}})", "x"))
          .body);
  CHECK(unknown.allowed);
  CHECK(unknown.patch.empty());
  auto metrics = client.get("/metrics").body;
  CHECK_THAT(
      metrics,
      Catch::Contains(
          R"(workload_map_requests_total{endpoint="mutate",operation="CREATE",kind="Gizmo",outcome="unknown-kind"} 1)"));
  CHECK_THAT(
      metrics,
      Catch::Contains(
          R"(workload_map_requests_total{endpoint="mutate",operation="UPDATE",kind="JobSet",outcome="skipped"} 1)"));
  CHECK_THAT(metrics,
             Catch::Contains(
                 R"(workload_map_requests_total{endpoint="mutate",operation="DELETE",kind="",outcome="skipped"} 1)"));
  // As many as the server said when it started.
  std::smatch loaded;
  const std::string banner = server.banner();
  REQUIRE(std::regex_search(banner, loaded, std::regex(R"(\((\d+) workload definitions)")));
  CHECK_THAT(metrics, Catch::Contains("workload_map_definitions_loaded " + loaded[1].str() + "\n"));
  CHECK_THAT(metrics, Catch::Contains("workload_map_certificate_expiry_timestamp_seconds"));
  CHECK(client.get("/healthz").body == "ok\n");
  CHECK(client.get("/readyz").status == 200);
}

TEST_CASE("the failure policy decides for objects the mapper cannot understand") {
  const std::string broken =
      R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"b"},"spec":{"replicatedJobs":"not-a-list"}})";
  std::string fail_policy =
      write_temp("policy-fail.yaml", policy_with_rules("- name: all\n  profile: kai\n  failurePolicy: Fail\n"));
  ServerProcess closed({"--policy", fail_policy});
  simdjson::dom::parser parser;
  auto refused =
      parser.parse(HttpsClient(closed.port()).post("/mutate", admission_review(broken, "x")).body)["response"];
  CHECK(refused["allowed"].get_bool().value() == false);
  CHECK_THAT(std::string(refused["status"]["message"].get_string().value()),
             Catch::Contains("cannot understand JobSet x/b"));

  ServerProcess open;  // the built-in policy fails open
  HttpsClient client(open.port());
  auto allowed = parse_answer(client.post("/mutate", admission_review(broken, "x")).body);
  CHECK(allowed.allowed);
  CHECK_THAT(allowed.warnings, Catch::Contains("failure policy Ignore"));
  CHECK_THAT(client.get("/metrics").body, Catch::Contains(R"(kind="JobSet",outcome="not-understood"} 1)"));
}

TEST_CASE("a pod template its gang's filters leave out gets the scheduler but no gang names") {
  if (!have_command("kubectl")) return;
  const std::string dir = source_path("tests/fixtures/gang-filters");
  std::string policy =
      write_temp("policy-filters.yaml", policy_with_rules("- name: all\n  profile: volcano\n  queue: {value: q1}\n"));
  ServerProcess server({"--definitions", dir, "--policy", policy});
  HttpsClient client(server.port());
  const std::string trainer =
      R"({"apiVersion":"example.com/v1","kind":"Trainer","metadata":{"name":"t"},"spec":{"roles":[
    {"name":"gpu","replicas":4,"template":{"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"nvidia.com/gpu":8}}}]}}},
    {"name":"loader","replicas":2,"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}]}})";
  auto answer = parse_answer(client.post("/mutate", admission_review(trainer, "ns1")).body);
  auto patched = parse_json(kubectl_apply(trainer, answer.patch));
  CHECK(string_at(patched.root, "/spec/roles/0/template/metadata/annotations/scheduling.k8s.io~1group-name") == "t");
  CHECK(string_at(patched.root, "/spec/roles/1/template/metadata/annotations/scheduling.k8s.io~1group-name") ==
        "<missing>");
  CHECK(string_at(patched.root, "/spec/roles/1/template/metadata/annotations/scheduling.volcano.sh~1queue-name") ==
        "q1");
  CHECK(string_at(patched.root, "/spec/roles/1/template/spec/schedulerName") == "volcano");
  CHECK(string_at(patched.root, "/metadata/annotations/workload-map.io~1gang-size") == "4");
}

TEST_CASE("a served version no definition reads is not understood, never read with another version's paths") {
  // Milvus v1alpha1 is served by the Milvus CRD with another schema than v1beta1, which the catalog reads.
  const std::string old_milvus =
      R"({"apiVersion":"milvus.io/v1alpha1","kind":"Milvus","metadata":{"name":"m"},"spec":{"config":{}}})";
  std::string fail_policy =
      write_temp("policy-fail-version.yaml", policy_with_rules("- name: all\n  profile: kai\n  failurePolicy: Fail\n"));
  ServerProcess closed({"--policy", fail_policy});
  simdjson::dom::parser parser;
  auto refused =
      parser.parse(HttpsClient(closed.port()).post("/mutate", admission_review(old_milvus, "x")).body)["response"];
  CHECK(refused["allowed"].get_bool().value() == false);
  CHECK(std::string(refused["status"]["message"].get_string().value()) ==
        "workload-map cannot understand milvus.io/v1alpha1 Milvus: no definition reads this version (definitions "
        "read v1beta1)");

  ServerProcess open;
  HttpsClient client(open.port());
  auto allowed = parse_answer(client.post("/mutate", admission_review(old_milvus, "x")).body);
  CHECK(allowed.allowed);
  CHECK(allowed.patch.empty());
  CHECK_THAT(allowed.warnings, Catch::Contains("no definition reads this version"));
  CHECK_THAT(client.get("/metrics").body, Catch::Contains(R"(kind="Milvus",outcome="not-understood"} 1)"));
  // KubeRay's v1alpha1 is read by the v1 definition, which names it.
  const std::string ray =
      R"({"apiVersion":"ray.io/v1alpha1","kind":"RayCluster","metadata":{"name":"r"},"spec":{"headGroupSpec":{"template":{"spec":{"containers":[{"name":"h","image":"ray"}]}}}}})";
  auto patched = parse_answer(client.post("/mutate", admission_review(ray, "x")).body);
  CHECK_FALSE(patched.patch.empty());
  CHECK(patched.warnings.empty());
}

// A gang whose minimum is more than its pods never starts: KAI copies a PyTorchJob's minAvailable as it is
// (pytorch_grouper.go). Admission says so with both numbers: a warning by default, a refusal when the rule asks.
TEST_CASE("a PyTorchJob whose minAvailable is past its pods is warned of, or refused by refuseUnmeetableGangs") {
  const std::string job = R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"never"},
    "spec":{"runPolicy":{"schedulingPolicy":{"minAvailable":33}},"pytorchReplicaSpecs":{
      "Master":{"replicas":1,"template":{"spec":{"containers":[{"name":"pytorch","image":"x"}]}}},
      "Worker":{"replicas":5,"template":{"spec":{"containers":[{"name":"pytorch","image":"x"}]}}}}}})";
  const std::string expected = "PyTorchJob team-a/never never starts under kai-scheduler: gang";
  {
    ServerProcess server(
        {"--policy", write_temp("policy-unmeetable-warn.yaml", policy_with_rules("- name: all\n  profile: kai\n"))});
    HttpsClient client(server.port());
    MutateAnswer answer = parse_answer(client.post("/validate", admission_review(job, "team-a")).body);
    CHECK(answer.allowed);
    CHECK_THAT(answer.warnings, Catch::Contains(expected));
    CHECK_THAT(answer.warnings, Catch::Contains("gang \"never\" needs 33 pods placed at once but starts 6"));
    // A warning past the API server's 500 bytes is cut before a whole character, never inside one: a name of
    // two-byte characters (the webhook sees objects before their schema does) still gives valid JSON.
    for (int length : {201, 202}) {  // one of the two puts byte 500 inside a character
      std::string wide;
      for (int i = 0; i < length; ++i) wide += "\xc3\xa9";
      std::string wide_job = job;
      wide_job.replace(wide_job.find("\"never\""), 7, "\"" + wide + "\"");
      MutateAnswer cut = parse_answer(client.post("/validate", admission_review(wide_job, "team-a")).body);
      REQUIRE_FALSE(cut.warnings.empty());
      CHECK(cut.warnings.size() <= 501);  // one warning and its newline
      CHECK_THAT(cut.warnings, Catch::StartsWith(std::string("PyTorchJob team-a/") + "\xc3\xa9"));
    }
  }
  ServerProcess server({"--policy", write_temp("policy-unmeetable-refuse.yaml",
                                               policy_with_rules("- name: all\n  profile: kai\n  limits: "
                                                                 "{refuseUnmeetableGangs: true}\n"))});
  HttpsClient client(server.port());
  HttpResponse response = client.post("/validate", admission_review(job, "team-a"));
  MutateAnswer answer = parse_answer(response.body);
  CHECK_FALSE(answer.allowed);
  CHECK_THAT(response.body, Catch::Contains(expected));
  // Kueue admits every pod at once: a gang of 6, which can start.
  ServerProcess kueue({"--policy", write_temp("policy-unmeetable-kueue.yaml",
                                              policy_with_rules("- name: all\n  profile: kueue\n  queue: {value: q}\n"
                                                                "  limits: {refuseUnmeetableGangs: true}\n"))});
  CHECK(parse_answer(HttpsClient(kueue.port()).post("/validate", admission_review(job, "team-a")).body).allowed);
}

TEST_CASE("the metrics port serves plain HTTP with HELP on every family and build info and the operation per request") {
  ServerProcess server({"--metrics-listen", "127.0.0.1:0"});
  std::smatch m;
  const std::string banner = server.banner();
  REQUIRE(std::regex_search(banner, m, std::regex(R"(metrics on http://127\.0\.0\.1:(\d+)/metrics)")));
  const std::string base = "http://127.0.0.1:" + m[1].str();
  HttpsClient client(server.port());
  auto object = std::move(parse_file(source_path("examples/jobset-12-gpus.yaml")).front());
  client.post("/mutate", admission_review(json::element_json(object.root), "team-a"));

  std::string metrics, code;
  REQUIRE(run("curl -sf " + base + "/metrics", metrics) == 0);
  CHECK_THAT(metrics, Catch::Contains("workload_map_build_info{version=\""));
  CHECK_THAT(metrics, Catch::Contains("workload_map_admission_in_flight 0"));
  CHECK_THAT(metrics,
             Catch::Contains(R"(workload_map_requests_total{endpoint="mutate",operation="CREATE",kind="JobSet")"));
  // Every family a scraper sees has its HELP and TYPE.
  std::set<std::string> typed, helped;
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# TYPE ", 0) == 0) typed.insert(line.substr(7, line.find(' ', 7) - 7));
    if (line.rfind("# HELP ", 0) == 0) helped.insert(line.substr(7, line.find(' ', 7) - 7));
  }
  CHECK(typed.size() >= 10);
  CHECK(typed == helped);
  // Probes answer there too; it serves nothing else, and nothing but GET.
  run("curl -s -o /dev/null -w '%{http_code}' " + base + "/readyz", code);
  CHECK(code == "200");
  run("curl -s -o /dev/null -w '%{http_code}' -X POST --data '{}' " + base + "/mutate", code);
  CHECK(code == "405");
  run("curl -s -o /dev/null -w '%{http_code}' " + base + "/mutate", code);
  CHECK(code == "404");
}
