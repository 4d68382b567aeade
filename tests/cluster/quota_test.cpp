// The mission's example through kubectl: a JobSet of 12 GPUs refused by the API server under an 8-GPU limit,
// with the webhook's own message, and admitted once the policy says 16, without restarting the webhook.
#include <catch2/catch.hpp>

#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm::test;

TEST_CASE("the 12-GPU JobSet is refused under an 8-GPU limit and admitted under 16 after a policy change") {
  const Cluster& cluster = Cluster::get();
  // As a user would: the example names its namespace.
  const std::string ns = "team-a";
  create_namespace(ns);
  const std::string jobset = source_path("examples/jobset-12-gpus.yaml");
  RegisteredWebhook webhook(gpu_limit_policy(8));

  CommandResult refused = cluster.kubectl({"apply", "-f", jobset});
  INFO(refused.out << refused.err);
  CHECK(refused.status != 0);
  CHECK(refused.err.find("admission webhook \"validate.workload-map.io\" denied the request") != std::string::npos);
  CHECK(refused.err.find("JobSet " + ns +
                         "/train asks for 12 nvidia.com/gpu across 3 pods (leader 1\xC3\x97"
                         "4, " +
                         "workers 2\xC3\x97"
                         "4); the limit for namespace " +
                         ns + " is 8") != std::string::npos);
  CHECK(cluster.kubectl({"get", "jobset", "train", "-n", ns}).status != 0);

  webhook.set_policy(gpu_limit_policy(16));
  // The server reloads the file within a second or two; a server-side dry run asks it without storing anything.
  const bool reloaded = eventually(
      [&] {
        return cluster.kubectl({"apply", "--dry-run=server", "-f", jobset}).status == 0;
      },
      std::chrono::seconds(15));
  REQUIRE(reloaded);
  CommandResult admitted = cluster.kubectl({"apply", "-f", jobset});
  INFO(admitted.err);
  REQUIRE(admitted.status == 0);
  simdjson::dom::parser parser;
  auto stored = cluster.get_json(parser, {"get", "jobset", "train", "-n", ns});
  CHECK(string_at(stored, "/metadata/annotations/workload-map.io~1gang-size") == "3");
  CHECK(string_at(stored, "/metadata/labels/kai.scheduler~1queue") == "team-a");
  for (const char* job : {"0", "1"})
    CHECK(string_at(stored, std::string("/spec/replicatedJobs/") + job +
                                "/template/spec/template/spec/schedulerName") == "kai-scheduler");
}
