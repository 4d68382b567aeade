// An Argo Workflow made from a WorkflowTemplate or ClusterWorkflowTemplate (spec.workflowTemplateRef): counted from
// the template as Argo merges it (workflow/util/merge.go JoinWorkflowSpec: the Workflow's spec over the template's,
// arguments by name), edited where Argo gives every pod its metadata and scheduler; without the template, its pods
// are not counted, and the view says so instead of failing. The reference is optional: a Workflow with its own
// templates reads as before.
#include <catch2/catch.hpp>

#include "mapper/view/pod_edits.h"
#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

// A template that runs `workers` GPU pods `{{workflow.parameters.workers}}` times (default 2), and a launcher once.
const std::string kTemplate = R"({"apiVersion":"argoproj.io/v1alpha1","kind":"WorkflowTemplate",
  "metadata":{"name":"train","namespace":"team-a"},
  "spec":{"entrypoint":"main","arguments":{"parameters":[{"name":"workers","value":"2"},{"name":"image","value":"x"}]},
   "templates":[
    {"name":"main","steps":[[{"name":"launch","template":"launcher"}],
                            [{"name":"work","template":"worker","withSequence":{"count":"{{workflow.parameters.workers}}"}}],
                            [{"name":"shard","template":"worker","withParam":"{{workflow.parameters.shards}}"}]]},
    {"name":"launcher","container":{"image":"l"}},
    {"name":"worker","container":{"image":"w","resources":{"limits":{"nvidia.com/gpu":4}}}}]}})";

const std::string kClusterTemplate = R"({"apiVersion":"argoproj.io/v1alpha1","kind":"ClusterWorkflowTemplate",
  "metadata":{"name":"shared"},
  "spec":{"entrypoint":"one","templates":[{"name":"one","container":{"image":"o",
    "resources":{"limits":{"nvidia.com/gpu":8}}}}]}})";

struct Fixture : test::ReferencedViews {
  Fixture() {
    REQUIRE(store.put(kTemplate));
    REQUIRE(store.put(kClusterTemplate));
  }
  view::WorkloadView view(const std::string& yaml) { return ReferencedViews::view(yaml, "team-a"); }
};

long long gpus(const view::WorkloadView& v) {
  auto it = v.total_requests.find("nvidia.com/gpu");
  return it == v.total_requests.end() ? 0 : it->second.units_ceil();
}

std::string workflow(const std::string& spec) {
  return "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: run, namespace: team-a}\nspec:\n" + spec;
}

}  // namespace

TEST_CASE("a Workflow from a WorkflowTemplate counts the template's pods, with the Workflow's arguments") {
  Fixture f;
  struct Case {
    const char* what;
    std::string yaml;
    long long pods, gpus;
  };
  const Case cases[] = {
      {"the template's defaults: 1 launcher, 2 workers, and a shard per item of an unknown list (1)",
       workflow("  workflowTemplateRef: {name: train}\n"), 4, 12},
      {"the Workflow's arguments win by name; a withParam list is counted",
       workflow("  workflowTemplateRef: {name: train}\n  arguments:\n    parameters:\n"
                "    - {name: workers, value: \"5\"}\n    - {name: shards, value: '[\"a\",\"b\",\"c\"]'}\n"),
       1 + 5 + 3, 32},
      {"its own entrypoint over the template's",
       workflow("  workflowTemplateRef: {name: train}\n  entrypoint: launcher\n"), 1, 0},
      {"a ClusterWorkflowTemplate, by clusterScope",
       workflow("  workflowTemplateRef: {name: shared, clusterScope: true}\n"), 1, 8},
      {"a CronWorkflow's workflowSpec",
       "apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: nightly, namespace: team-a}\n"
       "spec:\n  schedules: [\"0 2 * * *\"]\n  workflowSpec:\n    workflowTemplateRef: {name: train}\n"
       "    arguments: {parameters: [{name: workers, value: \"3\"}]}\n",
       1 + 3 + 1, 16},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto v = f.view(c.yaml);
    REQUIRE(v.problems.empty());
    CHECK(v.total_pods == c.pods);
    CHECK(gpus(v) == c.gpus);
  }
}

TEST_CASE("a Workflow whose template is not known is understood, with its pods reported as not counted") {
  Fixture f;
  auto v = f.view(workflow("  workflowTemplateRef: {name: later}\n"));
  CHECK(v.problems.empty());
  CHECK(v.total_pods == 0);
  REQUIRE(v.unresolved_references.size() == 1);
  CHECK_THAT(v.unresolved_references[0],
             Catch::Contains("reference template: WorkflowTemplate team-a/later (argoproj.io) is not known"));
}

TEST_CASE("a Workflow that names no template reads its own templates, at their own locations") {
  Fixture f;
  auto v = f.view(workflow("  entrypoint: a\n  templates:\n  - {name: a, container: {image: a}}\n"));
  REQUIRE(v.problems.empty());
  CHECK_FALSE(v.resolved);
  CHECK(v.total_pods == 1);
  REQUIRE(v.components.size() == 2);
  CHECK(v.components[1].instances.at(0).fields.labels);
}

TEST_CASE("a Workflow from a template is edited where Argo gives every pod its metadata and scheduler") {
  Fixture f;
  auto v = f.view(workflow("  workflowTemplateRef: {name: train}\n  podMetadata: {labels: {team: a}}\n"));
  const view::PodEdits edits{"kai-scheduler", "high", {{"kai.scheduler/queue", "team-a"}}, {{"gang", "run"}}};
  std::vector<std::string> warnings;
  const std::string patch = view::make_patch(v, *f.kept.back().doc, edits, {}, warnings);
  CHECK(warnings.empty());
  CHECK_THAT(patch, Catch::Contains(R"({"op":"add","path":"/spec/schedulerName","value":"kai-scheduler"})"));
  CHECK_THAT(patch, Catch::Contains(R"({"op":"add","path":"/spec/podPriorityClassName","value":"high"})"));
  CHECK_THAT(patch, Catch::Contains(R"("path":"/spec/podMetadata/labels/kai.scheduler~1queue","value":"team-a")"));
  CHECK_THAT(patch, Catch::Contains(R"("path":"/spec/podMetadata/annotations","value":{"gang":"run"})"));
}

}  // namespace wm
