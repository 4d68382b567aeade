// webhook::review() on in-memory AdmissionReviews, without TLS: what admission answers for workloads whose pods live
// inside other objects (an AppWrapper's) or in many Deployments (a Milvus in groups), and for what it cannot read.
#include "webhook/admission.h"

#include <catch2/catch.hpp>

#include "base/json/json_writer.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

namespace wm::webhook {
namespace {

struct Answer {
  AdmissionResult result;
  bool allowed = false;
  std::string patch, warnings;
};

// `references`: what the cluster side holds (queues among them); none by default, as the CLI has.
Answer answer(Endpoint endpoint, const std::string& object_yaml, const std::string& rules,
              std::shared_ptr<const view::ReferenceStore> references = nullptr) {
  yaml::Diagnostics errors;
  auto policy = policy::Policy::load(test::policy_with_rules(rules), "policy.yaml", errors);
  REQUIRE(policy);
  policy::AdmissionState state{std::make_shared<const catalog::Catalog>(catalog::Catalog::embedded(errors)),
                               std::make_shared<const policy::Policy>(std::move(*policy))};
  state.references = std::move(references);
  REQUIRE(errors.empty());
  auto objects = test::parse_yaml(object_yaml);
  REQUIRE(objects.size() == 1);
  simdjson::dom::parser parser;
  Answer a;
  a.result = review(endpoint, test::admission_review(json::element_json(objects[0].root), "team-a"), state, parser);
  REQUIRE(a.result.http_status == 200);
  simdjson::dom::parser answer_parser;
  simdjson::dom::element response = answer_parser.parse(a.result.body)["response"].value();
  a.allowed = response["allowed"].get_bool().value();
  std::string_view patch;
  if (response["patch"].get_string().get(patch) == simdjson::SUCCESS) a.patch = test::base64_decode(std::string(patch));
  simdjson::dom::array warnings;
  if (response["warnings"].get_array().get(warnings) == simdjson::SUCCESS)
    for (auto w : warnings) a.warnings += std::string(w.get_string().value()) + "\n";
  return a;
}

Answer mutate(const std::string& object_yaml, const std::string& rules = "- name: all\n  profile: kai\n") {
  return answer(Endpoint::Mutate, object_yaml, rules);
}

// The shipped policy's rules, as a cluster without a policy of its own runs them.
std::string shipped_rules() {
  const std::string policy = test::read_file(test::source_path("manifests/base/policy.yaml"));
  return policy.substr(policy.find("\nrules:\n") + 8);
}

const char* const kJobSet = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train%LABELS%}
spec:
  replicatedJobs:
  - name: workers
    template: {spec: {parallelism: 2, completions: 2, template: {spec: {containers: [{name: t, image: t}]}}}}
)";

std::string jobset(const std::string& labels = "") {
  std::string y = kJobSet;
  return y.replace(y.find("%LABELS%"), 8, labels.empty() ? "" : ", labels: {" + labels + "}");
}

// KAI's queues as the cluster side holds them once listed: a stock install's two.
std::shared_ptr<view::ReferenceStore> kai_queues() {
  auto store = std::make_shared<view::ReferenceStore>();
  store->replace_kind(
      "scheduling.run.ai", "Queue",
      {R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"default-parent-queue"}})",
       R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"default-queue"}})"});
  return store;
}

}  // namespace

TEST_CASE("under the shipped policy a workload with no queue label goes to the queue a stock KAI install makes") {
  const Answer a = mutate(jobset(), shipped_rules());
  CHECK(a.result.outcome == Outcome::Patched);
  // On the workload (where KAI's podgrouper looks first) and on its pod template.
  CHECK_THAT(a.patch, Catch::Contains(R"({"op":"add","path":"/metadata/labels","value":{"kai.scheduler/queue":)"
                                      R"("default-queue"}})"));
  CHECK_THAT(a.patch,
             Catch::Contains(R"(/template/metadata","value":{"labels":{"kai.scheduler/queue":"default-queue"}})"));
  CHECK_THAT(a.patch, !Catch::Contains(R"("kai.scheduler/queue":"default")"));
  // The label the rule reads wins, and a rule's own default wins over the profile's.
  CHECK_THAT(mutate(jobset("kai.scheduler/queue: research"), shipped_rules()).patch,
             Catch::Contains(R"({"labels":{"kai.scheduler/queue":"research"}})"));
  // A rule that requires a queue gets no default: an unlabelled workload is refused, as it asks.
  const std::string required =
      "- name: all\n  profile: kai\n  queue: {fromLabel: kai.scheduler/queue}\n"
      "  limits: {requireQueue: true}\n";
  CHECK_THAT(mutate(jobset(), required).patch, !Catch::Contains("default-queue"));
  const Answer refused = answer(Endpoint::Validate, jobset(), required);
  CHECK_FALSE(refused.allowed);
  CHECK_THAT(refused.result.body, Catch::Contains("names no queue: set the label kai.scheduler/queue on it"));
  CHECK_THAT(mutate(jobset(), "- name: all\n  profile: kai\n  queue: {default: team-a}\n").patch,
             Catch::Contains(R"({"op":"add","path":"/metadata/labels","value":{"kai.scheduler/queue":"team-a"}})"));
}

TEST_CASE("a queue that KAI does not have is a warning at admission, once the cluster side has listed the queues") {
  const std::string rules = shipped_rules();
  const Answer missing = answer(Endpoint::Validate, jobset("kai.scheduler/queue: research"), rules, kai_queues());
  CHECK(missing.allowed);
  CHECK_THAT(
      missing.warnings,
      Catch::Contains("JobSet team-a/train: queue \"research\" does not exist (no scheduling.run.ai/v2 Queue of "
                      "that name in the cluster); kai-scheduler leaves the workload pending until it is created"));
  CHECK(answer(Endpoint::Validate, jobset(), rules, kai_queues()).warnings.empty());
  // Not listed yet (or no cluster side, as in the CLI): nothing is known, so nothing is said.
  CHECK(answer(Endpoint::Validate, jobset("kai.scheduler/queue: research"), rules,
               std::make_shared<view::ReferenceStore>())
            .warnings.empty());
  // Listed and then forgotten (no profile names the kind any more): silent again.
  auto forgotten = kai_queues();
  forgotten->forget_kind("scheduling.run.ai", "Queue");
  CHECK(answer(Endpoint::Validate, jobset("kai.scheduler/queue: research"), rules, forgotten).warnings.empty());
  // A profile whose queues are not objects (coscheduling) never warns.
  CHECK(answer(Endpoint::Validate, jobset(), "- name: all\n  profile: coscheduling\n  queue: {value: research}\n",
               kai_queues())
            .warnings.empty());
}

TEST_CASE("an AppWrapper is edited inside the objects it wraps, as their own kinds are") {
  const Answer a =
      mutate(test::read_file(test::source_path("tests/fixtures/upstream/appwrapper/wrapped-pytorch-job.yaml")));
  CHECK(a.result.outcome == Outcome::Patched);
  CHECK(a.allowed);
  CHECK_THAT(
      a.patch,
      Catch::Contains(
          R"("path":"/spec/components/0/template/spec/pytorchReplicaSpecs/Master/template/spec/schedulerName","value":"kai-scheduler")"));
  CHECK_THAT(
      a.patch,
      Catch::Contains(
          R"("path":"/spec/components/0/template/spec/pytorchReplicaSpecs/Worker/template/spec/schedulerName","value":"kai-scheduler")"));
  CHECK_THAT(a.patch, Catch::Contains(R"("path":"/metadata/annotations/workload-map.io~1gang-size","value":"2")"));
}

TEST_CASE("an AppWrapper holding a kind no definition reads gets the rule's failure policy") {
  const std::string widget =
      "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: aw}\nspec:\n  components:\n"
      "  - podSets: [{replicas: 2, path: template.spec.template}]\n"
      "    template: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {template: {}}}\n";
  const Answer ignored = mutate(widget);
  CHECK(ignored.allowed);
  CHECK(ignored.result.outcome == Outcome::NotUnderstood);
  CHECK(ignored.patch.empty());
  CHECK_THAT(
      ignored.warnings,
      Catch::Contains("wrapped example.com/v1 Widget at /spec/components/0/template: no definition reads this kind"));
  const Answer refused = mutate(widget, "- name: all\n  profile: kai\n  failurePolicy: Fail\n");
  CHECK_FALSE(refused.allowed);
  CHECK(refused.result.outcome == Outcome::FailedClosed);
}

TEST_CASE("a Milvus in deployment groups gangs the pods of every group") {
  const Answer a =
      mutate(test::read_file(test::source_path("tests/fixtures/upstream/milvus/milvus_deployment_groups.yaml")));
  CHECK(a.result.outcome == Outcome::Patched);
  CHECK_THAT(a.patch, Catch::Contains(R"("path":"/metadata/annotations","value":{"workload-map.io/gang-size":"13")"));
  CHECK_THAT(a.patch,
             Catch::Contains(R"({"op":"add","path":"/spec/components/proxy/schedulerName","value":"kai-scheduler"})"));
}

}  // namespace wm::webhook

namespace wm::webhook {

// An Argo Workflow's resource template creates its object (a JobSet) with a controller ownerReference to the Workflow
// when it sets setOwnerReference (workflow/controller/operator.go). The Argo definitions own only their pods
// (workload-map.io/owns-only-components), so the JobSet is a workload of its own and edited; a pod the Workflow
// controls stays its part, as a Job's pods stay the Job's.
TEST_CASE(
    "what an Argo Workflow's resource template creates is admitted as a workload of its own, and its pods are its") {
  const std::string owner =
      "ownerReferences: [{apiVersion: argoproj.io/v1alpha1, kind: Workflow, name: wf, uid: u1, controller: true}]";
  const Answer jobset = mutate(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: made-by-argo, )" +
                               owner + R"(}
spec:
  replicatedJobs:
  - name: w
    template: {spec: {template: {spec: {containers: [{name: c, image: x}]}}}}
)");
  CHECK(jobset.result.outcome == Outcome::Patched);
  CHECK_THAT(jobset.patch, Catch::Contains("kai-scheduler"));
  const Answer pod = mutate("apiVersion: v1\nkind: Pod\nmetadata: {name: wf-step, " + owner +
                            "}\nspec: {containers: [{name: main, image: x}]}\n");
  CHECK(pod.result.outcome == Outcome::Controlled);
  // A Job's pods: the Job definition does not own only its components, so what it controls is its part.
  const Answer job_pod = mutate(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: j-1, ownerReferences: [{apiVersion: batch/v1, kind: Job, "
      "name: j, uid: u2, controller: true}]}\nspec: {containers: [{name: c, image: x}]}\n");
  CHECK(job_pod.result.outcome == Outcome::Controlled);
}

}  // namespace wm::webhook

namespace wm::webhook {

// A JobSet of one replicated Job, `pod_fields` written first in its pod spec.
std::string small_jobset(const std::string& pod_fields = "") {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: train}\nspec:\n  replicatedJobs:\n"
         "  - name: w\n    template: {spec: {template: {spec: {" +
         pod_fields + "containers: [{name: c, image: x}]}}}}\n";
}

// The native profile: Kubernetes' own gang scheduling. The workload's admission names each gang's PodGroup in a pod
// annotation (kept by every template; a CRD made from an older k8s.io/api prunes spec.schedulingGroup), and each pod's
// own admission copies it into spec.schedulingGroup.podGroupName (webhook/pod_group_name.h).
TEST_CASE("native: a JobSet's pods are named to their PodGroup, and each pod gets it in spec.schedulingGroup") {
  const std::string native = "- name: all\n  profile: native\n";
  const Answer jobset = mutate(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
  - name: w
    replicas: 5
    template: {spec: {template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]}}}}
)",
                               native);
  CHECK(jobset.result.outcome == Outcome::Patched);
  CHECK_THAT(jobset.patch, Catch::Contains(R"("workload-map.io/pod-group":"train")"));
  CHECK_THAT(jobset.patch, Catch::Contains(R"("workload-map.io/profile":"native")"));  // the cluster side makes it

  const std::string job_owned =
      "ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train-w-0, uid: u, "
      "controller: true}]";
  const Answer pod = mutate("apiVersion: v1\nkind: Pod\nmetadata: {name: train-w-0-0, " + job_owned +
                                ", annotations: {workload-map.io/pod-group: train}}\nspec: {containers: [{name: c, "
                                "image: x}]}\n",
                            native);
  CHECK(pod.result.outcome == Outcome::PodGroupNamed);
  CHECK(pod.patch == R"([{"op":"add","path":"/spec/schedulingGroup","value":{"podGroupName":"train"}}])");
  // Set already (by its controller, or an earlier call): left as it is, since the field is immutable.
  const Answer named = mutate("apiVersion: v1\nkind: Pod\nmetadata: {name: p, " + job_owned +
                                  ", annotations: {workload-map.io/pod-group: train}}\nspec: {schedulingGroup: "
                                  "{podGroupName: other}, containers: [{name: c, image: x}]}\n",
                              native);
  CHECK(named.result.outcome == Outcome::Controlled);
  CHECK(named.patch.empty());

  // A pod that is its own workload: the annotation and the field in its own admission's patch.
  const Answer alone = mutate(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, "
      "image: x}]}\n",
      native);
  CHECK_THAT(alone.patch,
             Catch::Contains(R"({"op":"add","path":"/spec/schedulingGroup","value":{"podGroupName":"solo"}})"));
}

// A profile whose PodGroup kind the cluster side found not served would give no gang, silently: admission says so.
TEST_CASE(
    "native: without Kubernetes' own PodGroups served, a workload is admitted with a warning that names the API") {
  auto cluster = std::make_shared<view::ReferenceStore>();
  cluster->set_served("scheduling.k8s.io", "PodGroup", false);
  const std::string jobset = small_jobset();
  const Answer unserved = answer(Endpoint::Validate, jobset, "- name: all\n  profile: native\n", cluster);
  CHECK(unserved.allowed);
  CHECK_THAT(unserved.warnings, Catch::Contains("JobSet team-a/train gets no gang: this cluster does not serve "
                                                "scheduling.k8s.io/v1beta1 PodGroup, which profile native makes"));
  cluster->set_served("scheduling.k8s.io", "PodGroup", true);
  CHECK(answer(Endpoint::Validate, jobset, "- name: all\n  profile: native\n", cluster).warnings.empty());
}

// A controller that makes Kubernetes' gang objects itself when the object asks (the Job controller for a Job with
// spec.scheduling) gets the workload: the native profile's override (`when`) writes nothing then, so no pod names a
// second gang; the same Job without it gets the profile's gang.
TEST_CASE("native: a Job that asks the Job controller for its own gang is handed off, a Job that does not is not") {
  const std::string native = "- name: all\n  profile: native\n";
  const std::string job =
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  parallelism: 2\n"
      "  completions: 2\nSCHEDULING  template: {spec: {restartPolicy: Never, containers: "
      "[{name: c, image: x}]}}\n";
  auto with = [&](const std::string& scheduling) {
    std::string out = job;
    out.replace(out.find("SCHEDULING"), 10, scheduling);
    return out;
  };
  const Answer ours = mutate(with(""), native);
  CHECK_THAT(ours.patch, Catch::Contains(R"("workload-map.io/pod-group":"pi")"));
  CHECK_THAT(ours.patch, Catch::Contains(R"("workload-map.io/profile":"native")"));
  // A root Job's template names the gang itself: the Job controller then makes no Workload of its own.
  CHECK_THAT(ours.patch, Catch::Contains(R"({"op":"add","path":"/spec/template/spec/schedulingGroup",)"
                                         R"("value":{"podGroupName":"pi"}})"));
  const Answer handed_off = mutate(with("  scheduling: {schedulingPolicy: {gang: {minCount: 2}}}\n"), native);
  CHECK_THAT(handed_off.patch, !Catch::Contains("workload-map.io/pod-group"));
  CHECK_THAT(handed_off.patch, !Catch::Contains("schedulingGroup"));
  CHECK_THAT(handed_off.patch, !Catch::Contains("workload-map.io/profile"));  // no PodGroups to make
  // A template that names its own PodGroup keeps it.
  const std::string own =
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  template: {spec: "
      "{schedulingGroup: {podGroupName: mine}, restartPolicy: Never, containers: [{name: c, "
      "image: x}]}}\n";
  const Answer own_job = mutate(own, native);
  CHECK_THAT(own_job.patch, !Catch::Contains("schedulingGroup"));
  // Nor a Workload and PodGroup of workload-map's beside the one its pods use (the Job controller's rule too): the
  // pods are named to the template's own.
  CHECK_THAT(own_job.patch, Catch::Contains(R"("workload-map.io/pod-group":"mine")"));
  CHECK_THAT(own_job.patch, !Catch::Contains("workload-map.io/profile"));
}

// JobSet's workload-aware scheduling guide: the user makes the Workload and PodGroup and names the PodGroup in the
// JobSet's templates. The profile's override (whenPodSpecHas, decided once the pod specs are found, for any kind) then
// makes no second gang and names the user's on the pods; the same JobSet without it gets the profile's.
TEST_CASE("native: a workload whose pod templates name their own PodGroup brought its own gang, of any kind") {
  const std::string native = "- name: all\n  profile: native\n";
  const Answer brought = mutate(small_jobset("schedulingGroup: {podGroupName: mine}, "), native);
  CHECK(brought.allowed);
  CHECK_THAT(brought.patch, !Catch::Contains("workload-map.io/profile"));  // the cluster side makes nothing
  CHECK_THAT(brought.patch, !Catch::Contains("schedulingGroup"));
  // Its pods are named to its own PodGroup, which each pod's admission sets where an operator dropped the field.
  CHECK_THAT(brought.patch, Catch::Contains(R"("workload-map.io/pod-group":"mine")"));
  const Answer pod = mutate(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: train-w-0-0, ownerReferences: [{apiVersion: batch/v1, kind: Job, "
      "name: train-w-0, uid: u, controller: true}], annotations: {workload-map.io/pod-group: mine}}\n"
      "spec: {containers: [{name: c, image: x}]}\n",
      native);
  CHECK(pod.patch == R"([{"op":"add","path":"/spec/schedulingGroup","value":{"podGroupName":"mine"}}])");
  // A rule's own pod annotations can name it too.
  const Answer by_rule = mutate(small_jobset("schedulingGroup: {podGroupName: mine}, "),
                                "- name: all\n  podAnnotations: {own-group: \"{{podSchedulingGroup}}\"}\n");
  CHECK_THAT(by_rule.patch, Catch::Contains(R"("own-group":"mine")"));
  const Answer ours = mutate(small_jobset(), native);
  CHECK_THAT(ours.patch, Catch::Contains(R"("workload-map.io/pod-group":"train")"));
  CHECK_THAT(ours.patch, Catch::Contains(R"("workload-map.io/profile":"native")"));
}

}  // namespace wm::webhook

namespace wm::webhook {
namespace {

// A review that throws is answered, never the end of the process: the rule's failure policy, outcome Failed.
AdmissionResult thrown_from_review(const std::string& rules, std::function<AdmissionResult()> review) {
  yaml::Diagnostics errors;
  auto policy = policy::Policy::load(test::policy_with_rules(rules), "policy.yaml", errors);
  REQUIRE(policy);
  policy::AdmissionState state{std::make_shared<const catalog::Catalog>(catalog::Catalog::embedded(errors)),
                               std::make_shared<const policy::Policy>(std::move(*policy))};
  auto objects = test::parse_yaml(jobset());
  simdjson::dom::parser parser;
  const std::string body = test::admission_review(json::element_json(objects[0].root), "team-a");
  return guarded(body, state, parser, review);
}

}  // namespace

TEST_CASE("an exception thrown inside a review is an answer under the rule's failure policy, with the UID") {
  auto throws = []() -> AdmissionResult { throw std::out_of_range("map::at"); };
  AdmissionResult ignored = thrown_from_review("- name: all\n  profile: kai\n", throws);
  CHECK(ignored.http_status == 200);
  CHECK(ignored.outcome == Outcome::Failed);
  CHECK_FALSE(ignored.uid.empty());
  CHECK_THAT(ignored.body, Catch::Contains("\"allowed\":true") && Catch::Contains("map::at") &&
                               Catch::Contains("failure policy Ignore"));
  CHECK_THAT(ignored.message, Catch::Contains("failed while reviewing JobSet team-a/train: map::at"));

  AdmissionResult refused = thrown_from_review("- name: all\n  profile: kai\n  failurePolicy: Fail\n",
                                               []() -> AdmissionResult { throw std::bad_alloc(); });
  CHECK(refused.outcome == Outcome::Failed);
  CHECK_THAT(refused.body, Catch::Contains("\"allowed\":false") && Catch::Contains("out of memory"));

  AdmissionResult anything = thrown_from_review("- name: all\n  profile: kai\n", []() -> AdmissionResult { throw 7; });
  CHECK(anything.outcome == Outcome::Failed);
  CHECK_THAT(anything.body, Catch::Contains("\"allowed\":true"));
}

}  // namespace wm::webhook

namespace wm::webhook {

// Workloads whose every pod the API server will refuse (a CRD's schema checks none of this): warned of under the
// shipped policy on both endpoints, refused under refuseInvalidPods.
TEST_CASE("workloads the API server would strand are warned of under the shipped policy, refused when the rule asks") {
  const std::vector<std::pair<std::string, std::string>> stranded = {
      {R"(apiVersion: batch/v1
kind: Job
metadata: {name: no-limit}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: x, resources: {requests: {nvidia.com/gpu: 1}}}]
)",
       "container main: resources.requests[nvidia.com/gpu] 1: Limit must be set for non overcommitable resources; the "
       "API server will refuse its pods"},
      {R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: half-gpu}
spec:
  replicatedJobs:
  - name: workers
    template: {spec: {template: {spec: {containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: 500m}}}]}}}}
)",
       "must be an integer"},
      {R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: uneven}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: pytorch, image: x, resources: {requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 4}}}]}}
)",
       "container pytorch: resources.requests[nvidia.com/gpu] 2: must be equal to nvidia.com/gpu limit of 4"},
      {R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: cpu-over}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate: {spec: {containers: [{name: w, image: x, resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}}]}}
)",
       "must be less than or equal to cpu limit of \"1\""}};
  for (const auto& [manifest, warning] : stranded) {
    INFO(manifest);
    for (Endpoint endpoint : {Endpoint::Mutate, Endpoint::Validate}) {
      Answer a = answer(endpoint, manifest, shipped_rules());
      CHECK(a.allowed);
      CHECK_THAT(a.warnings, Catch::Contains(warning) && Catch::Contains("the API server will refuse its pods"));
    }
    Answer refused =
        answer(Endpoint::Validate, manifest, "- name: all\n  profile: kai\n  limits: {refuseInvalidPods: true}\n");
    CHECK_FALSE(refused.allowed);
  }
  CHECK(mutate(jobset(), shipped_rules()).warnings.find("refuse its pods") == std::string::npos);
}

TEST_CASE("topology: a rule's level goes on the workload for KAI, and one its profile drops is warned of or refused") {
  const std::string racks = "topologies:\n  racks: {levels: [example.com/block, example.com/rack]}\n";
  const Answer kai =
      mutate(jobset(), "- name: all\n  profile: kai\n  topology: {name: racks, required: example.com/rack}\n" + racks);
  CHECK_THAT(kai.patch, Catch::Contains(R"("kai.scheduler/topology":"racks")") &&
                            Catch::Contains(R"("kai.scheduler/topology-required-placement":"example.com/rack")") &&
                            !Catch::Contains("topology-preferred-placement"));
  CHECK(kai.warnings.empty());
  // Without a topology, none of the keys (a value of empty variables is left out, not written empty).
  CHECK_THAT(mutate(jobset()).patch, !Catch::Contains("kai.scheduler/topology"));

  const std::string preferred = "  topology: {name: racks, preferred: example.com/rack}\n";
  const Answer warned = answer(Endpoint::Validate, jobset(), "- name: all\n  profile: native\n" + preferred + racks);
  CHECK(warned.allowed);
  CHECK_THAT(warned.warnings, Catch::Contains("JobSet team-a/train: its gangs' preferred level example.com/rack of "
                                              "topology racks is dropped: profile native"));
  const Answer refused =
      answer(Endpoint::Validate, jobset(),
             "- name: all\n  profile: native\n" + preferred + "  limits: {refuseDroppedTopology: true}\n" + racks);
  CHECK_FALSE(refused.allowed);
}

TEST_CASE("topology: a rule's sub-group level goes where KAI's groupers read a sub-group's, and is dropped elsewhere") {
  const std::string racks = "topologies:\n  racks: {levels: [example.com/block, example.com/rack]}\n";
  const std::string rule =
      "  topology: {name: racks, required: example.com/block, subGroups: {required: example.com/rack}}\n";
  // A JobSet: on its replicated job's Job template (one leaf sub-group per Job), beside the gang's level on the JobSet.
  const Answer kai = mutate(jobset(), "- name: all\n  profile: kai\n" + rule + racks);
  const std::string sub = R"({"annotations":{"kai.scheduler/topology":"racks",)"
                          R"("kai.scheduler/topology-required-placement":"example.com/rack"}})";
  CHECK_THAT(kai.patch, Catch::Contains(R"("path":"/spec/replicatedJobs/0/template/metadata","value":)" + sub) &&
                            Catch::Contains(R"("kai.scheduler/topology-required-placement":"example.com/block")"));
  CHECK(kai.warnings.empty());
  // A RayCluster: on each group's pod template metadata, in the same write as the pod template's own labels.
  const Answer ray = mutate(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, namespace: team-a}
spec:
  headGroupSpec: {template: {spec: {containers: [{name: head, image: ray}]}}}
  workerGroupSpecs:
  - groupName: gpu
    replicas: 2
    template: {spec: {containers: [{name: w, image: ray, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)",
                            "- name: all\n  profile: kai\n" + rule + racks);
  CHECK_THAT(ray.patch, Catch::Contains(R"("path":"/spec/workerGroupSpecs/0/template/metadata","value":{"labels":)") &&
                            Catch::Contains(R"("annotations":{"kai.scheduler/topology":"racks","kai.scheduler/)"
                                            R"(topology-required-placement":"example.com/rack"}})"));
  // Under a profile that carries no sub-group level, or a kind without sub-groups' metadata: dropped, said.
  const Answer kueue = answer(Endpoint::Validate, jobset(), "- name: all\n  profile: kueue\n" + rule + racks);
  CHECK_THAT(kueue.warnings, Catch::Contains("its sub-groups' required level example.com/rack of topology racks is "
                                             "dropped: profile kueue"));
  const Answer deployment = answer(Endpoint::Validate, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: w, image: web}]}
)",
                                   "- name: all\n  profile: kai\n" + rule + racks);
  CHECK_THAT(deployment.warnings, Catch::Contains("its sub-groups' required level example.com/rack"));
  // Sub-group levels alone: the JobSet names no topology of its own (KAI refuses a gang's topology without a level).
  const Answer jobs_only = mutate(
      jobset(),
      "- name: all\n  profile: kai\n  topology: {name: racks, subGroups: {required: example.com/rack}}\n" + racks);
  CHECK_THAT(jobs_only.patch,
             Catch::Contains(R"("path":"/spec/replicatedJobs/0/template/metadata","value":)" + sub) &&
                 !Catch::Contains(R"("path":"/metadata/annotations","value":{"kai.scheduler/topology")"));
}

}  // namespace wm::webhook

namespace wm::webhook {
namespace {

// Nodes of two racks as the cluster side sums them (controllers/node_watch.h): rack-a of 3 nodes of 8 GPUs, rack-b of
// 2, and a cordoned node of rack-b, which holds no new gang.
std::shared_ptr<view::ReferenceStore> racks_of_nodes() {
  std::map<std::string, view::NodeRoom, std::less<>> nodes;
  const std::vector<std::string> keys = {"example.com/block", "example.com/rack"};
  int n = 0;
  for (const char* rack : {"rack-a", "rack-a", "rack-a", "rack-b", "rack-b"}) {
    const std::string node = std::string(R"({"kind":"Node","metadata":{"labels":{"example.com/rack":")") + rack +
                             R"("}},"status":{"allocatable":{"nvidia.com/gpu":"8","cpu":"64"}}})";
    simdjson::dom::parser parser;
    nodes.emplace("node-" + std::to_string(n++), *view::node_room(parser.parse(node).value(), keys));
  }
  auto store = std::make_shared<view::ReferenceStore>();
  store->set_node_domains(std::make_shared<const view::NodeDomains>(nodes, keys));
  return store;
}

TEST_CASE(
    "topology: a gang larger than the largest domain of its required level is warned of, refused under the limit") {
  const std::string racks = "topologies:\n  racks: {levels: [example.com/block, example.com/rack]}\n";
  const std::string rack_rule = "- name: all\n  profile: kai\n  topology: {name: racks, required: example.com/rack}\n";
  std::string gpus = jobset();  // 2 pods, then 4 of 8 GPUs each: 32 GPUs, more than rack-a's 24
  gpus.replace(gpus.find("containers: [{name: t, image: t}]"), 33,
               "containers: [{name: t, image: t, resources: {limits: {nvidia.com/gpu: 8}}}]");
  std::string large = gpus;
  large.replace(large.find("parallelism: 2, completions: 2"), 30, "parallelism: 4, completions: 4");

  const Answer warned = answer(Endpoint::Validate, large, rack_rule + racks, racks_of_nodes());
  CHECK(warned.allowed);
  CHECK_THAT(warned.warnings,
             Catch::Contains("JobSet team-a/train never starts under kai-scheduler: gang train needs 32 nvidia.com/gpu "
                             "inside one example.com/rack, and the largest (example.com/rack=rack-a, 3 nodes) has 24"));
  const Answer refused = answer(Endpoint::Validate, large,
                                rack_rule + "  limits: {refuseUnmeetableGangs: true}\n" + racks, racks_of_nodes());
  CHECK_FALSE(refused.allowed);
  CHECK_THAT(refused.result.body, Catch::Contains("the largest (example.com/rack=rack-a, 3 nodes) has 24"));

  // 16 GPUs fit rack-a; without the line, or before the cluster side has summed the Nodes, nothing is said.
  CHECK(answer(Endpoint::Validate, gpus, rack_rule + racks, racks_of_nodes()).warnings.empty());
  CHECK(answer(Endpoint::Validate, large, "- name: all\n  profile: kai\n" + racks, racks_of_nodes()).warnings.empty());
  CHECK(answer(Endpoint::Validate, large, rack_rule + racks).warnings.empty());

  // A level no node carries: the gang waits until nodes are labelled, a warning whatever the limits.
  const Answer unlabelled =
      answer(Endpoint::Validate, gpus,
             "- name: all\n  profile: kai\n  topology: {name: racks, required: example.com/block}\n"
             "  limits: {refuseUnmeetableGangs: true}\n" +
                 racks,
             racks_of_nodes());
  CHECK(unlabelled.allowed);
  CHECK_THAT(unlabelled.warnings, Catch::Contains("no schedulable node carries the label example.com/block, inside one "
                                                  "value of which gang train must land"));
}

TEST_CASE("topology: a level the scheduler's topology objects lack is a warning, once the cluster side holds them") {
  const std::string racks = "topologies:\n  racks: {levels: [example.com/block, example.com/rack]}\n";
  const std::string rule = "- name: all\n  profile: kai\n  topology: {name: racks, required: example.com/rack}\n";
  auto held = std::make_shared<view::ReferenceStore>();
  CHECK(answer(Endpoint::Validate, jobset(), rule + racks, held).warnings.empty());  // KAI's Topologies not listed
  held->replace_kind("kai.scheduler", "Topology",
                     {R"({"apiVersion":"kai.scheduler/v1alpha1","kind":"Topology","metadata":{"name":"rows"},)"
                      R"("spec":{"levels":[{"nodeLabel":"example.com/rack"}]}})"});
  CHECK_THAT(
      answer(Endpoint::Validate, jobset(), rule + racks, held).warnings,
      Catch::Contains("JobSet team-a/train: kai-scheduler cannot place its gangs by topology racks: no "
                      "kai.scheduler/v1alpha1 Topology named racks exists; it leaves them pending until one does"));
  held->put(R"({"apiVersion":"kai.scheduler/v1alpha1","kind":"Topology","metadata":{"name":"racks"},)"
            R"("spec":{"levels":[{"nodeLabel":"example.com/rack"}]}})");
  CHECK(answer(Endpoint::Validate, jobset(), rule + racks, held).warnings.empty());
}

}  // namespace
}  // namespace wm::webhook
