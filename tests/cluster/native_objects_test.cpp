// The native profile's objects, as the cluster side plans them (controllers/pod_group_plan.h), for every fixture of
// every catalog kind: each Workload and PodGroup is sent to the real API server (kubernetes v1.37, GenericWorkload on,
// scheduling.k8s.io/v1beta1 served) as a server-side dry run, and must be valid there: a template name that is not a
// DNS label, a controllerRef or a workloadRef the API refuses would leave a workload with no gang, and only an Event
// to say why. The scheduler tests show kube-scheduler running such gangs; this one covers every shape of the catalog.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "base/json/json_patch.h"
#include "base/json/json_read.h"
#include "controllers/pod_group_plan.h"
#include "kube/client.h"
#include "kube/discovery.h"
#include "mapper/expr/json_patch_apply.h"
#include "policy/keys.h"
#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace wm::test;

namespace {

// The object as the cluster side sees it after its admission under `profile`: in `namespace_name`, with a uid, a name
// (the API server's, for a generateName object) and the profile label admission writes.
std::string admitted_as(simdjson::dom::element object, const std::string& namespace_name, const std::string& profile) {
  json::JsonPatchBuilder patch(object);
  if (json::string_at(object, "/metadata/name").empty())
    REQUIRE(
        patch.set_string("/metadata/name", std::string(json::string_at(object, "/metadata/generateName")) + "x7k2p"));
  REQUIRE(patch.set_string("/metadata/namespace", namespace_name));
  REQUIRE(patch.set_string("/metadata/uid", "00000000-0000-0000-0000-000000000001"));
  REQUIRE(patch.merge_map("/metadata/labels", {{std::string(kProfileLabel), profile}}));
  auto patched = expr::apply_json_patch(simdjson::to_string(object), patch.str());
  REQUIRE(patched);
  return *patched;
}

}  // namespace

TEST_CASE(
    "native: every fixture's Workload and PodGroups, as the cluster side plans them, are valid to the API server") {
  const std::unique_ptr<kube::Client> client = Cluster::get().client();
  kube::Client& api = *client;
  kube::Discovery discovery(api);
  REQUIRE(discovery.find("scheduling.k8s.io", "v1beta1", "Workload"));

  policy::AdmissionState state;
  state.catalog = std::shared_ptr<const catalog::Catalog>(&builtin_catalog(), [](const catalog::Catalog*) {});
  state.policy = std::make_shared<const policy::Policy>(policy::Policy::builtin());
  const std::string ns = make_namespace("native-objects");
  // What the cluster side would hold: the fixtures' TrainJob runtimes and Argo templates, which the pods of their
  // TrainJobs and Workflows come from (the namespaced ones in the workloads' namespace).
  auto references = std::make_shared<view::ReferenceStore>();
  for (const char* held : {"tests/fixtures/upstream/trainjob/runtimes/deepspeed-distributed.yaml",
                           "tests/fixtures/upstream/trainjob/runtimes/torch-distributed.yaml",
                           "tests/fixtures/upstream/argo/clustertemplates.yaml",
                           "tests/fixtures/upstream/argo/workflow-template-templates.yaml"})
    for (auto& object : parse_file(source_path(held))) {
      std::string json = simdjson::to_string(object.root);
      if (object.kind == "WorkflowTemplate") {
        json::JsonPatchBuilder patch(object.root);
        REQUIRE(patch.set_string("/metadata/namespace", ns));
        auto placed = expr::apply_json_patch(json, patch.str());
        REQUIRE(placed);
        json = *placed;
      }
      REQUIRE(references->put(json));
    }
  state.references = references;

  std::vector<std::pair<std::string, std::string>> files;  // directory, file
  for (const auto& f : corpus_files()) files.emplace_back(corpus_dir(), f);
  const std::string upstream = source_path("tests/fixtures/upstream");
  for (const auto& f : yaml_files_under(upstream)) files.emplace_back(upstream, f);

  std::map<std::string, int> accepted;  // by the object's kind: Workload, PodGroup
  std::set<std::string> kinds_with_workloads;
  int not_planned = 0;
  for (const auto& [dir, file] : files)
    for (auto& object : parse_file(dir + "/" + file)) {
      if (!builtin_catalog().find(object.api_version, object.kind).definition) continue;
      INFO(file << ": " << object.kind << " " << object.name);
      const std::string admitted = admitted_as(object.root, ns, "native");
      simdjson::dom::parser parser;
      const simdjson::dom::element workload = parser.parse(admitted).value();
      const auto desired = controllers::plan_pod_groups(state, workload, discovery.finder());
      if (!desired) {  // not understood: the JobSet scaffold with an empty spec, a TrainJob whose runtime is not here
        INFO(desired.error());
        CHECK(desired.code() == ErrorCode::Invalid);
        ++not_planned;
        continue;
      }
      for (const auto& [place, body] : desired->bodies) {
        const kube::Response r = api.request("POST", place.first + "?dryRun=All&fieldManager=workload-map-test", body);
        INFO(place.first << " " << place.second << ": " << body);
        INFO(r.describe());
        CHECK(r.ok());
        simdjson::dom::parser made_parser;
        const std::string kind(json::string_at(made_parser.parse(body).value(), "/kind"));
        if (r.ok()) ++accepted[kind];
        if (kind == "Workload") kinds_with_workloads.insert(object.kind);
      }
    }
  INFO("Workloads " << accepted["Workload"] << ", PodGroups " << accepted["PodGroup"] << ", not planned "
                    << not_planned);
  CHECK(accepted["Workload"] >= 100);
  CHECK(accepted["PodGroup"] >= accepted["Workload"]);
  CHECK(not_planned <= 2);
  for (const char* kind : {"JobSet", "LeaderWorkerSet", "RayCluster", "PyTorchJob", "MPIJob", "Workflow",
                           "PodCliqueSet", "NIMService", "Notebook", "SparkApplication", "Pod"}) {
    INFO(kind);
    CHECK(kinds_with_workloads.count(kind));
  }
}
