// KAI Scheduler's podgrouper reads a catalog Karta for every kind it has no grouper of its own for
// (pkg/podgrouper/podgrouper/plugins/karta), and evaluates its jq with gojq (github.com/itchyny/gojq, through
// run-ai/karta). gojq has no keys_unsorted (it keeps no key order) and no input-reading builtins; such a Karta fails
// in KAI ("function not defined: keys_unsorted/0", seen in the test bed) while workload-map reads it. So the Kartas
// KAI reads use only what both engines have.
#include <catch2/catch.hpp>
#include <set>

#include "tests/support/test_support.h"

namespace {

// The kinds KAI groups by its own plugins (kai-scheduler d5bc503a, pkg/podgrouper/podgrouper/hub/hub.go: the table of
// NewDefaultPluginsHub, the Argo, Run:ai, TrainJob and nvidia.com DynamoGraphDeployment entries); any other kind with
// a Karta is grouped by it.
const std::set<std::string> kKaiGroupers = {"apps/v1/Deployment",
                                            "kubeflow.org/v1/TFJob",
                                            "kubeflow.org/v1/PyTorchJob",
                                            "kubeflow.org/v1/XGBoostJob",
                                            "kubeflow.org/v1/JAXJob",
                                            "kubeflow.org/v1/MPIJob",
                                            "kubeflow.org/v2beta1/MPIJob",
                                            "kubeflow.org/v1beta1/Notebook",
                                            "batch/v1/Job",
                                            "apps/v1/StatefulSet",
                                            "apps/v1/ReplicaSet",
                                            "/v1/Pod",
                                            "serving.knative.dev/v1/Service",
                                            "batch/v1/CronJob",
                                            "ray.io/v1/RayCluster",
                                            "ray.io/v1/RayJob",
                                            "ray.io/v1/RayService",
                                            "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet",
                                            "jobset.x-k8s.io/v1alpha2/JobSet",
                                            "grove.io/v1alpha1/PodCliqueSet",
                                            "trainer.kubeflow.org/v1alpha1/TrainJob",
                                            "nvidia.com/v1alpha1/DynamoGraphDeployment",
                                            "nvidia.com/v1beta1/DynamoGraphDeployment",
                                            "argoproj.io/v1alpha1/Workflow"};

// jq builtins gojq does not implement (its README, "Difference to jq").
const char* const kNotInGojq[] = {"keys_unsorted",   "input_line_number", "$__prog_args",
                                  "get_search_list", "get_jq_origin",     "get_prog_origin"};

}  // namespace

TEST_CASE("the Kartas KAI reads (kinds without a KAI grouper) use only jq that KAI's gojq has") {
  const std::string dir = wm::test::source_path("definitions");
  size_t read_by_kai = 0;
  for (const auto& file : wm::test::yaml_files_under(dir))
    for (const auto& karta : wm::test::parse_file(dir + "/" + file)) {
      const std::string root = "/spec/structureDefinition/rootComponent/kind/";
      const std::string gvk = wm::test::string_at(karta.root, root + "group") + "/" +
                              wm::test::string_at(karta.root, root + "version") + "/" +
                              wm::test::string_at(karta.root, root + "kind");
      if (kKaiGroupers.count(gvk)) continue;
      ++read_by_kai;
      // The object's JSON text holds every expression (comments are gone).
      const std::string text = simdjson::to_string(karta.root);
      for (const char* builtin : kNotInGojq) {
        INFO(file << ": " << builtin);
        CHECK(text.find(builtin) == std::string::npos);
      }
    }
  CHECK(read_by_kai >= 10);
}
