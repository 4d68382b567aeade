// The PodGroup controller without an API server: what it decides (controllers/pod_group_plan.h) over the corpus's
// real manifests and the shipped profiles, and what it then does with a fake API server's answers.
#include "controllers/pod_groups.h"

#include <catch2/catch.hpp>

#include "controllers/pod_group_plan.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"
#include "tests/unit/controllers/controller_fixtures.h"

namespace wm::controllers {

namespace {

const kube::Resource kVolcanoPodGroups{"scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", true};

Result<kube::Resource> volcano_served(const std::string& group, const std::string& version, const std::string& kind) {
  if (group == kVolcanoPodGroups.group && kind == kVolcanoPodGroups.kind) return kVolcanoPodGroups;
  return Error{"not served", ErrorCode::NotFound};
}

std::unique_ptr<policy::StateStore> every_kind_under(const std::string& profile) {
  return test::state_with_policy(
      test::policy_with_rules("- name: all\n  namespaces: [\"*\"]\n  kinds: [\"*\"]\n  profile: " + profile +
                              "\n  queue: {value: q1}\n"),
      "pod-groups-" + profile + ".yaml");
}

Result<DesiredPodGroups> plan_for(const policy::StateStore& store, const std::string& workload_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element workload = parser.parse(workload_json).value();
  return plan_pod_groups(store.current(), workload, volcano_served);
}

}  // namespace

TEST_CASE("PodGroups: only the kinds that some rule's profile makes PodGroups for are watched") {
  auto volcano = every_kind_under("volcano");
  const auto wanted = kinds_needing_pod_groups(volcano->current());
  CHECK(wanted.count("jobset.x-k8s.io/JobSet"));
  CHECK(wanted.count("kubeflow.org/PyTorchJob"));
  // KubeRay makes its own Volcano PodGroups (the profile's override writes none): no watch of Ray kinds.
  CHECK_FALSE(wanted.count("ray.io/RayCluster"));
  // KAI's podgrouper makes KAI's: the kai profile writes none at all.
  CHECK(kinds_needing_pod_groups(every_kind_under("kai")->current()).empty());
}

TEST_CASE("PodGroups: a JobSet under volcano gets one PodGroup of its gang, owned by it and found by its uid") {
  auto store = every_kind_under("volcano");
  const auto desired = plan_for(*store, test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  REQUIRE(desired);
  REQUIRE(desired->bodies.size() == 1);
  const auto& [place, body] = *desired->bodies.begin();
  CHECK(place.first == "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups");
  CHECK(place.second == "paralleljobs");  // as admission names it on the pods: the workload's name
  simdjson::dom::parser parser;
  const auto object = parser.parse(body).value();
  CHECK(object.at_pointer("/spec/minMember").get_int64().value() ==
        5);  // = `inspect --profile volcano`: 4 workers and the driver
  CHECK(test::string_at(object, "/spec/queue") == "q1");
  CHECK(test::string_at(object, "/metadata/ownerReferences/0/kind") == "JobSet");
  CHECK(test::string_at(object, "/metadata/ownerReferences/0/uid") == "uid-1");
  CHECK(test::string_at(object, "/metadata/labels/workload-map.io~1owner-uid") == "uid-1");
  CHECK(desired->resources.count(place.first));
}

TEST_CASE("PodGroups: a kind whose operator makes its own gets none, and a gone profile or kind is nothing to do") {
  auto store = every_kind_under("volcano");
  const auto ray = plan_for(*store, test::admitted_workload("raycluster/ray-cluster.complete.yaml", "volcano"));
  REQUIRE(ray);
  CHECK(ray->bodies.empty());  // and any it has are deleted
  const auto gone = plan_for(*store, test::admitted_workload("jobset/paralleljobs.yaml", "slurm"));
  REQUIRE_FALSE(gone);
  CHECK(gone.code() == ErrorCode::Invalid);  // no retry: it changes only when the workload or policy does
}

TEST_CASE("PodGroups: a PodGroup kind not served yet is retried, not dropped") {
  auto store = every_kind_under("volcano");
  simdjson::dom::parser parser;
  const std::string workload = test::admitted_workload("jobset/paralleljobs.yaml", "volcano");
  const auto desired = plan_pod_groups(
      store->current(), parser.parse(workload).value(),
      [](const std::string&, const std::string&, const std::string&) -> Result<kube::Resource> {
        return Error{"/apis/scheduling.volcano.sh/v1beta1 serves no kind PodGroup", ErrorCode::NotFound};
      });
  REQUIRE_FALSE(desired);
  CHECK(retryable(desired.code()));
  CHECK(desired.error().find("serves no kind PodGroup") != std::string::npos);
}

TEST_CASE("PodGroups: the writes apply what differs and delete what is no longer desired") {
  DesiredPodGroups desired;
  desired.bodies[{"/p", "a"}] = "A2";
  desired.bodies[{"/p", "b"}] = "B";
  const std::map<PodGroupPlace, std::string> applied{{{"/p", "a"}, "A1"}, {{"/p", "b"}, "B"}, {{"/p", "c"}, ""}};
  const PodGroupWrites writes = plan_pod_group_writes(desired, applied);
  REQUIRE(writes.apply.size() == 1);
  CHECK(writes.apply[0].first.second == "a");
  CHECK(*writes.apply[0].second == "A2");
  REQUIRE(writes.remove.size() == 1);
  CHECK(writes.remove[0].second == "c");
  CHECK(plan_pod_group_writes(desired, {{{"/p", "a"}, "A2"}, {{"/p", "b"}, "B"}}).apply.empty());
}

TEST_CASE("PodGroups: the controller applies the plan, adopts what a previous leader made, and deletes the rest") {
  test::FakeCluster cluster(every_kind_under("volcano"));
  cluster.api.answer("GET", "/apis/scheduling.volcano.sh/v1beta1", 200,
                     test::discovery_document("PodGroup", "podgroups"));
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  // A previous leader made a PodGroup for a gang the JobSet no longer has.
  cluster.api.answer("GET", collection + "?labelSelector=", 200, R"({"items":[{"metadata":{"name":"stale"}}]})");
  cluster.api.answer("PATCH", collection + "/", 201);
  cluster.api.answer("DELETE", collection + "/", 200);
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  REQUIRE(controller.reconcile_one(key));
  const auto applies = cluster.api.calls("PATCH", collection);
  REQUIRE(applies.size() == 1);
  CHECK(applies[0].target == collection + "/paralleljobs?fieldManager=workload-map&force=true");
  CHECK(applies[0].content_type == kube::kApplyPatch);
  const auto deletes = cluster.api.calls("DELETE", collection);
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].target == collection + "/stale");
  // Nothing changed: nothing is written again.
  REQUIRE(controller.reconcile_one(key));
  CHECK(cluster.api.calls("PATCH", collection).size() == 1);
}

TEST_CASE("PodGroups: a write the API server fails or refuses is retried") {
  test::FakeCluster cluster(every_kind_under("volcano"));
  cluster.api.answer("GET", "/apis/scheduling.volcano.sh/v1beta1", 200,
                     test::discovery_document("PodGroup", "podgroups"));
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  cluster.api.answer("PATCH", collection + "/", 503, R"({"message":"etcd is down"})");
  PodGroupController controller(cluster.context());
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Added,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  const std::string key = "jobset.x-k8s.io/JobSet|team-a/paralleljobs";
  auto outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(outcome.code() == ErrorCode::Unavailable);
  CHECK(outcome.error().find("etcd is down") != std::string::npos);
  cluster.api.answer("PATCH", collection + "/", 422, R"({"message":"spec.minMember: Invalid value"})");
  outcome = controller.reconcile_one(key);
  REQUIRE_FALSE(outcome);
  CHECK(retryable(outcome.code()));  // a refusal may pass once the CRD or the policy changes
  cluster.api.answer("PATCH", collection + "/", 200);
  cluster.api.answer("GET", collection + "?labelSelector=", 200, R"({"items":[]})");
  CHECK(controller.reconcile_one(key));
  // A deleted workload: nothing is asked of the API server (its PodGroups go with it through their owner).
  auto pod_group_calls = [&] {
    size_t n = 0;
    for (const auto& call : cluster.api.calls()) n += call.target.rfind(collection, 0) == 0;
    return n;
  };
  const size_t calls = pod_group_calls();
  controller.changed("jobset.x-k8s.io/JobSet", kube::EventType::Deleted,
                     test::admitted_workload("jobset/paralleljobs.yaml", "volcano"));
  CHECK(controller.reconcile_one(key));
  CHECK(pod_group_calls() == calls);
}

}  // namespace wm::controllers
