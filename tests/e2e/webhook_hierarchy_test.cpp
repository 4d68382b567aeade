// Decided once, at the top: an object a catalog kind controls is left as its controller made it, and an UPDATE
// edits only the pod templates it changes.
#include <catch2/catch.hpp>

#include "mapper/json_writer.h"
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

}  // namespace

TEST_CASE("an object whose controller is a catalog kind is neither edited nor checked again") {
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
    CHECK(sets_key(edited.patch, "scheduling.k8s.io/group-name"));
    MutateAnswer refused = parse_answer(client.post("/validate", admission_review(pod_owned_by(owner), "team-a")).body);
    CHECK_FALSE(refused.allowed);
  }
  const std::string metrics = client.get("/metrics").body;
  CHECK_THAT(metrics,
             Catch::Contains(R"(workload_map_requests_total{endpoint="mutate",kind="Pod",outcome="controlled"} 1)"));
  CHECK_THAT(metrics,
             Catch::Contains(R"(workload_map_requests_total{endpoint="validate",kind="Pod",outcome="controlled"} 1)"));
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
  const std::string stored = element_json(object.root);

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
