// A DisaggregatedSet (lws 060ab4d, pkg/controllers/disaggregatedset) counted as the LeaderWorkerSets its controller
// makes: per slice and role one LWS of the role's replicas (1 for an External role: the seed of its new
// DisaggregatedSetRoleScaler), each group a leader and size - 1 workers, a gang per group of its role's size.
#include <catch2/catch.hpp>

#include "mapper/view/gangs.h"
#include "mapper/view/pod_edits.h"
#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

// Prefill: 3 groups of 4 pods (a leader without GPUs, 3 workers with 8); decode: External, groups of 2 pods with 4
// GPUs each, LeaderReady; two slices.
const char* kServe = R"(apiVersion: disaggregatedset.x-k8s.io/v1
kind: DisaggregatedSet
metadata: {name: serve, namespace: team-a}
spec:
  slices: 2
  roles:
  - name: prefill
    spec:
      replicas: 3
      leaderWorkerTemplate:
        size: 4
        leaderTemplate:
          spec: {containers: [{name: router, image: r}]}
        workerTemplate:
          spec: {containers: [{name: vllm, image: v, resources: {limits: {nvidia.com/gpu: 8}}}]}
  - name: decode
    scaling: {mode: External}
    spec:
      replicas: 9
      startupPolicy: LeaderReady
      leaderWorkerTemplate:
        size: 2
        workerTemplate:
          spec: {containers: [{name: vllm, image: v, resources: {limits: {nvidia.com/gpu: 4}}}]}
)";

struct Viewed {
  std::vector<test::ParsedObject> objects = test::parse_yaml(kServe);
  view::WorkloadView view;
  explicit Viewed(view::GangRule rule = view::GangRule::Minimum) {
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    view =
        view::build_view(*match.definition, *objects[0].doc, {.gang_rule = rule, .catalog = &test::builtin_catalog()});
    REQUIRE(view.problems.empty());
  }
};

}  // namespace

TEST_CASE("a DisaggregatedSet counts every role's groups in every slice") {
  Viewed v;
  std::map<std::string, long long> pods;
  for (const auto& c : v.view.components)
    for (const auto& i : c.instances)
      if (i.shape != view::PodShape::Logical) pods[c.name + "/" + i.id] = i.pods;
  // prefill: 2 slices x 3 groups; decode: External, so 1 group per slice whatever spec.replicas says.
  CHECK(pods == std::map<std::string, long long>{
                    {"leader/prefill", 6}, {"worker/prefill", 18}, {"leader/decode", 2}, {"worker/decode", 2}});
  CHECK(v.view.total_pods == 28);
  CHECK(v.view.total_requests.at("nvidia.com/gpu").units_ceil() ==
        18 * 8 + 4 * 4);  // decode's leader is its worker template
}

TEST_CASE("a DisaggregatedSet's gangs are its LeaderWorkerSets' groups, each of its role's size") {
  Viewed v;
  auto gangs = view::expanded_gangs(v.view.gangs, 100);
  REQUIRE(gangs.size() == 8);
  for (size_t g = 0; g < 6; ++g) CHECK(gangs[g].min_member == 4);  // prefill: a whole group
  CHECK(gangs[6].min_member == 1);                                 // decode, LeaderReady: its leader
  CHECK(gangs[7].min_member == 1);
  CHECK(gangs[0].pods == 4);
  CHECK(gangs[6].pods == 2);

  Viewed all(view::GangRule::AllPods);
  auto whole = view::expanded_gangs(all.view.gangs, 100);
  REQUIRE(whole.size() == 8);
  CHECK(whole[7].min_member == 2);

  view::name_gangs_as_admitted(v.view);
  REQUIRE(v.view.gangs.size() == 8);
  CHECK(v.view.gangs[0].name == "serve-group-prefill-0");
  CHECK(v.view.gangs[7].name == "serve-group-decode-1");
}

TEST_CASE("a DisaggregatedSet's edits go in every role's pod templates, where its controller takes them") {
  Viewed v;
  const view::PodEdits edits{"kai-scheduler", std::nullopt, {{"kai.scheduler/queue", "team-a"}}, {}};
  // The workload's labels also in each role's metadata, which the controller copies to the role's LeaderWorkerSet:
  // Kueue finds its queue there.
  const view::RootEdits root{{{"kueue.x-k8s.io/queue-name", "team-a"}}, {}};
  std::vector<std::string> warnings;
  const std::string patch = view::make_patch(v.view, *v.objects[0].doc, edits, root, warnings);
  CHECK(warnings.empty());
  CHECK(v.view.child_metadata == std::vector<std::string>{"/spec/roles/0/metadata", "/spec/roles/1/metadata"});
  CHECK_THAT(
      patch,
      Catch::Contains(R"("path":"/spec/roles/0/metadata","value":{"labels":{"kueue.x-k8s.io/queue-name":"team-a"}}})"));
  for (const char* at : {"/spec/roles/0/spec/leaderWorkerTemplate/leaderTemplate/spec/schedulerName",
                         "/spec/roles/0/spec/leaderWorkerTemplate/workerTemplate/spec/schedulerName",
                         "/spec/roles/1/spec/leaderWorkerTemplate/workerTemplate/spec/schedulerName",
                         "/spec/roles/1/spec/leaderWorkerTemplate/workerTemplate/metadata"}) {
    INFO(at);
    CHECK_THAT(patch, Catch::Contains(at));
  }
}

}  // namespace wm
