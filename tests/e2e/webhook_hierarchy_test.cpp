// Decided once, at the top: an object a catalog kind controls is left as its controller made it, and an UPDATE
// edits only the pod templates it changes.
#include <catch2/catch.hpp>
#include <map>

#include "base/json/json_writer.h"
#include "tests/e2e/webhook_test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

const char* const kVolcanoWithQuota = R"(- name: all
  profile: volcano
  queue: {value: q1}
  mutateOnUpdate: true
  limits:
    resources: {nvidia.com/gpu: 1}
)";

std::string pod_owned_by(const std::string& owner_reference) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-7d9f-","ownerReferences":[)" +
         owner_reference + R"(]},"spec":{"containers":[{"name":"c","image":"x",
         "resources":{"limits":{"nvidia.com/gpu":4}}}]}})";
}

// Whether the patch sets this metadata key: in a path (~1-escaped) or inside a whole map it adds.
bool sets_key(const std::string& patch, std::string key) {
  if (patch.find("\"" + key + "\"") != std::string::npos) return true;
  key.replace(key.find('/'), 1, "~1");
  return patch.find(key + "\"") != std::string::npos;
}

// Put in a gang under the Volcano profile: named on its pods, or handed to the operator's own Volcano integration
// (Ray kinds: ray.io/scheduler-name; LeaderWorkerSet: the queue on the LWS, with no group name on its pods).
bool grouped(const std::string& patch) {
  return sets_key(patch, "scheduling.k8s.io/group-name") || sets_key(patch, "ray.io/scheduler-name") ||
         sets_key(patch, "scheduling.volcano.sh/queue-name");
}

}  // namespace

TEST_CASE("an object whose controller is a catalog kind, or that a Pod owns, is neither edited nor checked again") {
  ServerProcess server({"--policy", write_temp("policy-hierarchy.yaml", policy_with_rules(kVolcanoWithQuota))});
  HttpsClient client(server.port());
  const std::string replica_set_controller =
      R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u1","controller":true})";

  const std::string controlled = pod_owned_by(replica_set_controller);
  MutateAnswer mutate = parse_answer(client.post("/mutate", admission_review(controlled, "team-a")).body);
  CHECK(mutate.allowed);
  CHECK(mutate.patch.empty());
  // Its 4 GPUs were counted when its Deployment was admitted; a second check could refuse half a workload.
  MutateAnswer validate = parse_answer(client.post("/validate", admission_review(controlled, "team-a")).body);
  CHECK(validate.allowed);

  // An owner that is not the controller, or a controller the catalog does not know: this Pod is the top level.
  for (const std::string owner :
       {R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u1"})",
        R"({"apiVersion":"example.com/v1","kind":"Gizmo","name":"g","uid":"u2","controller":true})"}) {
    INFO(owner);
    MutateAnswer edited = parse_answer(client.post("/mutate", admission_review(pod_owned_by(owner), "team-a")).body);
    CHECK(grouped(edited.patch));
    MutateAnswer refused = parse_answer(client.post("/validate", admission_review(pod_owned_by(owner), "team-a")).body);
    CHECK_FALSE(refused.allowed);
  }
  // A Pod that a Pod owns, not as controller: YuniKorn's gang placeholder for it (k8shim getOwnerReference). Editing
  // it would rename its app and task group, and the gang it holds a place for would never form (seen with the real
  // YuniKorn in tests/cluster/gang_scheduling_test.cpp).
  const std::string placeholder = pod_owned_by(
      R"({"apiVersion":"v1","kind":"Pod","name":"train-0","uid":"u3","controller":false,"blockOwnerDeletion":true})");
  MutateAnswer kept = parse_answer(client.post("/mutate", admission_review(placeholder, "team-a")).body);
  CHECK(kept.allowed);
  CHECK(kept.patch.empty());
  CHECK(parse_answer(client.post("/validate", admission_review(placeholder, "team-a")).body).allowed);
  const std::string metrics = client.get("/metrics").body;
  CHECK_THAT(
      metrics,
      Catch::Contains(
          R"(workload_map_requests_total{endpoint="mutate",operation="CREATE",kind="Pod",outcome="controlled"} 2)"));
  CHECK_THAT(
      metrics,
      Catch::Contains(
          R"(workload_map_requests_total{endpoint="validate",operation="CREATE",kind="Pod",outcome="controlled"} 2)"));
}

TEST_CASE("an UPDATE edits only the pod templates it changes, and always the workload's own metadata") {
  const std::string policy = policy_with_rules(R"(- name: all
  profile: volcano
  queue: {value: q1}
  mutateOnUpdate: true
)");
  ServerProcess server({"--policy", write_temp("policy-update.yaml", policy)});
  HttpsClient client(server.port());
  auto object = std::move(parse_file(source_path("examples/jobset-12-gpus.yaml")).front());
  const std::string stored = json::element_json(object.root);

  // Scaled: no template changed, so only the summary on the JobSet itself is rewritten.
  std::string scaled = stored;
  scaled.replace(scaled.find(R"("replicas":2)"), 12, R"("replicas":3)");
  MutateAnswer scale =
      parse_answer(client.post("/mutate", admission_review(scaled, "team-a", "UPDATE", "u1", stored)).body);
  CHECK(scale.allowed);
  CHECK(sets_key(scale.patch, "workload-map.io/pods"));
  CHECK_THAT(scale.patch, !Catch::Contains("/spec/replicatedJobs"));

  // The workers' template changed (a new image): that one is edited, the leader's is not.
  std::string retagged = stored;
  retagged.replace(retagged.rfind("24.05-py3"), 9, "24.06-py3");
  MutateAnswer retag =
      parse_answer(client.post("/mutate", admission_review(retagged, "team-a", "UPDATE", "u2", stored)).body);
  CHECK_THAT(retag.patch, Catch::Contains("/spec/replicatedJobs/1/template/spec/template"));
  CHECK_THAT(retag.patch, !Catch::Contains("/spec/replicatedJobs/0/"));

  // Without oldObject (never sent by the API server for UPDATE, but possible from other clients): every template.
  MutateAnswer no_old = parse_answer(client.post("/mutate", admission_review(stored, "team-a", "UPDATE", "u3")).body);
  CHECK_THAT(no_old.patch, Catch::Contains("/spec/replicatedJobs/0/"));
}

namespace {

// A child of a kind the catalog defines, as an operator's controller makes it: its controller ownerReference.
struct ControllerChild {
  const char* owner_api_version;
  const char* owner_kind;
  const char* kind;  // the child's kind, a key of child_bodies()
};

// One small object of each child kind, with "OWNERS" where its ownerReferences go.
const std::map<std::string, std::string>& child_bodies() {
  static const std::map<std::string, std::string> bodies = [] {
    const std::string pod_spec = R"({"containers":[{"name":"c","image":"x"}]})";
    const std::string pod_template = R"({"spec":)" + pod_spec + "}";
    auto object = [](const std::string& api_version, const std::string& kind, const std::string& spec) {
      return R"({"apiVersion":")" + api_version + R"(","kind":")" + kind +
             R"(","metadata":{"name":"child","OWNERS"},)" + R"("spec":)" + spec + "}";
    };
    auto replicated = [&](const std::string& api_version, const std::string& kind) {
      return object(api_version, kind, R"({"replicas":2,"template":)" + pod_template + "}");
    };
    return std::map<std::string, std::string>{
        {"Pod", object("v1", "Pod", pod_spec)},
        {"Job", replicated("batch/v1", "Job")},
        {"ReplicaSet", replicated("apps/v1", "ReplicaSet")},
        {"Deployment", replicated("apps/v1", "Deployment")},
        {"StatefulSet", replicated("apps/v1", "StatefulSet")},
        {"RayCluster", object("ray.io/v1", "RayCluster", R"({"headGroupSpec":{"template":)" + pod_template + "}}")},
        {"LeaderWorkerSet",
         object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet",
                R"({"replicas":1,"leaderWorkerTemplate":{"size":2,"workerTemplate":)" + pod_template + "}}")},
        {"Service", object("serving.knative.dev/v1", "Service", R"({"template":)" + pod_template + "}")},
        {"PodCliqueSet", object("grove.io/v1alpha1", "PodCliqueSet",
                                R"({"replicas":1,"template":{"cliques":[{"name":"a","spec":{"replicas":1,"podSpec":)" +
                                    pod_spec + "}}]}}")},
    };
  }();
  return bodies;
}

std::string child_of(const ControllerChild& c, bool controller) {
  std::string object = child_bodies().at(c.kind);
  const std::string owners = std::string(R"("ownerReferences":[{"apiVersion":")") + c.owner_api_version +
                             R"(","kind":")" + c.owner_kind + R"(","name":"top","uid":"u")" +
                             (controller ? R"(,"controller":true)" : "") + "}]";
  return object.replace(object.find(R"("OWNERS")"), 8, owners);
}

}  // namespace

TEST_CASE("children made by each operator's controller are left to their top-level workload") {
  // What each controller makes, per the operators' sources: JobSet (constructJob), the Job, CronJob, Deployment,
  // ReplicaSet and StatefulSet controllers, LWS (the leader StatefulSet; each leader Pod makes its group's worker
  // StatefulSet), KubeRay (RayJob and RayService make a RayCluster, RayJob its submitter Job, RayCluster its Pods),
  // the training-operator and mpi-operator (Pods; MPIJob's launcher Job), Grove (PodClique makes the Pods), Dynamo
  // (the DynamoGraphDeployment makes a PodCliqueSet, or DynamoComponentDeployments that make Deployments and
  // LeaderWorkerSets), KServe (a Deployment, or a Knative Service), Knative (a Revision makes the Deployment), the
  // NIM operator, the Milvus operator, and the AppWrapper controller (its wrapped objects, edited inside the
  // AppWrapper).
  const std::vector<ControllerChild> children = {
      {"jobset.x-k8s.io/v1alpha2", "JobSet", "Job"},
      {"batch/v1", "Job", "Pod"},
      {"batch/v1", "CronJob", "Job"},
      {"apps/v1", "Deployment", "ReplicaSet"},
      {"apps/v1", "ReplicaSet", "Pod"},
      {"apps/v1", "StatefulSet", "Pod"},
      {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "StatefulSet"},
      {"v1", "Pod", "StatefulSet"},
      {"ray.io/v1", "RayCluster", "Pod"},
      {"ray.io/v1", "RayJob", "RayCluster"},
      {"ray.io/v1", "RayJob", "Job"},
      {"ray.io/v1", "RayService", "RayCluster"},
      {"kubeflow.org/v1", "PyTorchJob", "Pod"},
      {"kubeflow.org/v2beta1", "MPIJob", "Job"},
      {"grove.io/v1alpha1", "PodClique", "Pod"},
      {"nvidia.com/v1alpha1", "DynamoGraphDeployment", "PodCliqueSet"},
      {"nvidia.com/v1alpha1", "DynamoComponentDeployment", "Deployment"},
      {"nvidia.com/v1alpha1", "DynamoComponentDeployment", "LeaderWorkerSet"},
      {"serving.kserve.io/v1beta1", "InferenceService", "Deployment"},
      {"serving.kserve.io/v1beta1", "InferenceService", "Service"},
      {"serving.knative.dev/v1", "Revision", "Deployment"},
      {"apps.nvidia.com/v1alpha1", "NIMService", "LeaderWorkerSet"},
      {"milvus.io/v1beta1", "Milvus", "Deployment"},
      {"workload.codeflare.dev/v1beta2", "AppWrapper", "Job"},
      {"workload.codeflare.dev/v1beta2", "AppWrapper", "Deployment"},
  };
  ServerProcess server({"--policy", write_temp("policy-children.yaml", policy_with_rules(kVolcanoWithQuota))});
  HttpsClient client(server.port());
  for (const auto& c : children) {
    INFO(c.kind << " controlled by " << c.owner_kind);
    MutateAnswer left = parse_answer(client.post("/mutate", admission_review(child_of(c, true), "team-a")).body);
    CHECK(left.allowed);
    CHECK(left.patch.empty());
    // The same object owned without being controlled, or controlled by a kind no definition knows: edited.
    MutateAnswer edited = parse_answer(client.post("/mutate", admission_review(child_of(c, false), "team-a")).body);
    CHECK(grouped(edited.patch));
    ControllerChild stranger = c;
    stranger.owner_api_version = "example.com/v1";
    MutateAnswer unknown =
        parse_answer(client.post("/mutate", admission_review(child_of(stranger, true), "team-a")).body);
    CHECK(grouped(unknown.patch));
  }
  CHECK_THAT(
      client.get("/metrics").body,
      Catch::Contains(
          R"(workload_map_requests_total{endpoint="mutate",operation="CREATE",kind="Pod",outcome="controlled"} 6)"));
}

TEST_CASE("under every shipped profile, a JobSet's Job and that Job's Pod are left untouched") {
  const ControllerChild job_of_jobset{"jobset.x-k8s.io/v1alpha2", "JobSet", "Job"};
  const ControllerChild pod_of_job{"batch/v1", "Job", "Pod"};
  for (const char* profile : {"kai", "volcano", "coscheduling", "kueue", "yunikorn"}) {
    DYNAMIC_SECTION("profile " << profile) {
      const std::string rules = std::string("- name: all\n  profile: ") + profile + "\n  queue: {value: q1}\n";
      ServerProcess server(
          {"--policy", write_temp(std::string("policy-") + profile + ".yaml", policy_with_rules(rules))});
      HttpsClient client(server.port());
      for (const auto& c : {job_of_jobset, pod_of_job}) {
        INFO(c.kind << " controlled by " << c.owner_kind);
        for (const char* endpoint : {"/mutate", "/validate"}) {
          MutateAnswer answer = parse_answer(client.post(endpoint, admission_review(child_of(c, true), "team-a")).body);
          CHECK(answer.allowed);
          CHECK(answer.patch.empty());
          CHECK(answer.warnings.empty());
        }
        // The same object as a top-level workload is edited by this profile.
        MutateAnswer top = parse_answer(client.post("/mutate", admission_review(child_of(c, false), "team-a")).body);
        CHECK_FALSE(top.patch.empty());
      }
    }
  }
}
