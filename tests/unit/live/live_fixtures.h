// What the live view's unit tests share: a snapshot built from a real JobSet manifest (the corpus's), the Jobs and
// pods its controller would make, and the objects KAI's controllers write.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "live/snapshot.h"
#include "policy/admission_state.h"
#include "tests/support/test_support.h"

namespace wm::live::fixtures {

using test::corpus_dir;

struct SnapshotBuilder {
  Snapshot snapshot;
  simdjson::dom::parser parser;

  simdjson::dom::element adopt(const std::string& json) {
    auto doc = std::make_unique<simdjson::dom::document>();
    simdjson::dom::element root;
    REQUIRE(parser.parse_into_document(*doc, json).get(root) == simdjson::SUCCESS);
    return snapshot.adopt(std::move(doc));
  }
  void object(const std::string& api_version, const std::string& kind, const std::string& json) {
    snapshot.objects.push_back({adopt(json), api_version, kind});
  }
  void pod(const std::string& json) { snapshot.pods.push_back(adopt(json)); }
  void gang_object(const std::string& api_version, const std::string& kind, const std::string& json) {
    snapshot.gang_objects.push_back({adopt(json), api_version, kind});
  }
  void event(const std::string& json) { snapshot.events.push_back(adopt(json)); }
};

inline std::string owner(const std::string& api_version, const std::string& kind, const std::string& name,
                         const std::string& uid, bool controller = true) {
  return R"({"apiVersion":")" + api_version + R"(","kind":")" + kind + R"(","name":")" + name + R"(","uid":")" + uid +
         R"(","controller":)" + (controller ? "true" : "false") + "}";
}

// The corpus's JobSet paralleljobs (workers: 4 pods, driver: 1), as the API server holds it once admitted under the
// kai profile: in team-a, with its uid, KAI's queue label and a status of two active Jobs; each container given a
// limit of `gpus` GPUs when asked (the corpus's ask for none).
inline std::string stored_jobset(int gpus = 0) {
  auto objects = test::parse_file(corpus_dir() + "/jobset/paralleljobs.yaml");
  REQUIRE(objects.size() == 1);
  std::string json = simdjson::minify(objects[0].root);
  const std::string metadata = R"("metadata":{"name":"paralleljobs"})";
  const size_t at = json.find(metadata);
  REQUIRE(at != std::string::npos);
  json.replace(at, metadata.size(),
               R"("metadata":{"name":"paralleljobs","namespace":"team-a","uid":"js-1",)"
               R"("labels":{"kai.scheduler/queue":"team-a","app":"fit"}})");
  const std::string limits = R"("resources":{"limits":{"nvidia.com/gpu":)" + std::to_string(gpus) + "}},";
  for (size_t i = 0; gpus && (i = json.find(R"("image":"busybox")", i)) != std::string::npos; i += limits.size() + 1)
    json.insert(i, limits);
  return json.substr(0, json.size() - 1) +
         R"(,"status":{"replicatedJobsStatus":[{"name":"workers","active":1,"ready":0},)"
         R"({"name":"driver","active":1,"ready":0}]}})";
}

inline std::string job(const std::string& name, const std::string& uid) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"team-a","uid":")" + uid + R"(","ownerReferences":[)" +
         owner("jobset.x-k8s.io/v1alpha2", "JobSet", "paralleljobs", "js-1") + "]}}";
}

inline std::string pod(const std::string& name, const std::string& job_name, const std::string& job_uid,
                       const std::string& node, const std::string& phase) {
  std::string conditions =
      node.empty() ? R"([{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/2 nodes are )"
                     R"(available: 2 Insufficient nvidia.com/gpu."}])"
                   : R"([{"type":"PodScheduled","status":"True"}])";
  return R"({"metadata":{"name":")" + name + R"(","namespace":"team-a","uid":"pod-)" + name +
         R"(","labels":{"kai.scheduler/queue":"team-a"},"ownerReferences":[)" +
         owner("batch/v1", "Job", job_name, job_uid) + R"(]},"spec":{"schedulerName":"kai-scheduler")" +
         (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") + R"(},"status":{"phase":")" + phase +
         R"(","conditions":)" + conditions + "}}";
}

// KAI's PodGroup as its podgrouper and scheduler write it (pkg/apis/scheduling/v2alpha2 PodGroup,
// markPodGroupUnschedulable).
inline const char* const kUnschedulablePodGroup =
    R"({"metadata":{"name":"pg-paralleljobs-js-1","namespace":"team-a","uid":"pg-1","ownerReferences":[)"
    R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"paralleljobs","uid":"js-1"}]},)"
    R"("spec":{"minMember":5,"queue":"team-a"},"status":{"schedulingConditions":[{"type":"UnschedulableOnNodePool",)"
    R"("nodePool":"default","reason":"Unschedulable","status":"True","message":"Resources were not found for pod)"
    R"( group","reasons":[{"reason":"Unschedulable","message":"Resources were not found for pod group"},)"
    R"({"reason":"Unschedulable","message":"node-group pool: 4 GPUs requested, 0 available"}]}]}})";

inline policy::AdmissionState state_with(const Snapshot& snapshot) {
  return {std::make_shared<const catalog::Catalog>(test::builtin_catalog()),
          std::make_shared<const policy::Policy>(policy::Policy::builtin()), snapshot.references};
}

inline SnapshotBuilder pending_jobset(int gpus = 0) {
  SnapshotBuilder b;
  b.object("jobset.x-k8s.io/v1alpha2", "JobSet", stored_jobset(gpus));
  b.object("batch/v1", "Job", job("paralleljobs-workers-0", "job-w"));
  b.object("batch/v1", "Job", job("paralleljobs-driver-0", "job-d"));
  for (int i = 0; i < 4; ++i) b.pod(pod("w-" + std::to_string(i), "paralleljobs-workers-0", "job-w", "", "Pending"));
  b.pod(pod("d-0", "paralleljobs-driver-0", "job-d", "", "Pending"));
  b.gang_object("scheduling.run.ai/v2alpha2", "PodGroup", kUnschedulablePodGroup);
  return b;
}

}  // namespace wm::live::fixtures
