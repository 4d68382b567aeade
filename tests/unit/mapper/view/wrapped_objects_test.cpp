// A definition that wraps whole objects (the AppWrapper's workload-map.io/wrapped-objects): each wrapped object is
// read with its own kind's definition, at its place in the wrapping object, and whatever cannot be read that way
// makes the workload not understood.
#include <catch2/catch.hpp>

#include "mapper/view/pod_edits.h"
#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

const std::string kPyTorchJob = R"(
    template:
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: train}
      spec:
        runPolicy: {schedulingPolicy: {minAvailable: 2}}
        pytorchReplicaSpecs:
          Master: {replicas: 1, template: {spec: {containers: [{name: p, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
          Worker: {replicas: 3, template: {spec: {containers: [{name: p, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
)";

std::string appwrapper(const std::string& components) {
  return "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: aw}\nspec:\n  components:\n" +
         components;
}

view::WorkloadView view_of(const std::string& yaml, view::ViewOptions options = {.catalog = &test::builtin_catalog()}) {
  static std::vector<test::ParsedObject> keep;  // the views point into their documents
  auto objects = test::parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  keep.push_back(std::move(objects[0]));
  return view::build_view(*match.definition, *keep.back().doc, options);
}

std::string only_warning(const view::WorkloadView& view) {
  REQUIRE(view.problems.size() == 1);
  return view.problems[0];
}

}  // namespace

TEST_CASE("a wrapped PyTorchJob is counted, gang-sized and edited by the PyTorchJob definition, in place") {
  auto objects = test::parse_yaml(appwrapper(
      "  - podSets: [{replicas: 1, path: template.spec.pytorchReplicaSpecs.Master.template}]" + kPyTorchJob));
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc, {.catalog = &test::builtin_catalog()});
  CHECK(view.problems.empty());
  CHECK(view.total_pods == 4);
  CHECK(view.total_requests.at("nvidia.com/gpu").units_ceil() == 4);
  REQUIRE(view.gangs.size() == 1);
  CHECK(view.gangs[0].name == "train.job");
  CHECK(view.gangs[0].min_member == 2);  // KAI's rule: schedulingPolicy.minAvailable

  std::vector<std::string> warnings;
  const std::string patch =
      view::make_patch(view, *objects[0].doc, {"kai-scheduler", std::nullopt, {{"q", "a"}}, {}}, {}, warnings);
  CHECK(warnings.empty());
  CHECK_THAT(
      patch,
      Catch::Contains(
          R"({"op":"add","path":"/spec/components/0/template/spec/pytorchReplicaSpecs/Master/template/spec/schedulerName","value":"kai-scheduler"})"));
  CHECK_THAT(patch, Catch::Contains("/spec/components/0/template/spec/pytorchReplicaSpecs/Worker/template/metadata"));

  // Kueue counts every pod of it.
  view::ViewOptions all_pods{.gang_rule = view::GangRule::AllPods, .catalog = &test::builtin_catalog()};
  CHECK(view::build_view(*match.definition, *objects[0].doc, all_pods).gangs[0].min_member == 4);
}

TEST_CASE("objects an AppWrapper holds that make no pods are not read") {
  // A Service beside the job, and a component whose podSets says it has no pods.
  const view::WorkloadView view = view_of(
      appwrapper(R"(  - template: {apiVersion: v1, kind: Service, metadata: {name: s}, spec: {ports: [{port: 80}]}}
  - podSets: []
    template: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}
  - )" + kPyTorchJob.substr(5)));
  CHECK(view.problems.empty());
  CHECK(view.total_pods == 4);
}

TEST_CASE("what a wrapped object's definition cannot read leaves the AppWrapper not understood") {
  CHECK_THAT(
      only_warning(
          view_of(appwrapper("  - template: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}\n"))),
      Catch::Contains("wrapped example.com/v1 Widget at /spec/components/0/template: no definition reads this kind"));
  CHECK_THAT(only_warning(view_of(
                 appwrapper("  - template: {apiVersion: kubeflow.org/v9, kind: PyTorchJob, metadata: {name: p}}\n"))),
             Catch::Contains("no definition reads this version (definitions read v1)"));
  CHECK_THAT(
      only_warning(view_of(appwrapper(
          "  - template: {apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, metadata: {name: inner}, "
          "spec: {components: []}}\n"))),
      Catch::Contains("it wraps objects itself, which is not read"));
  CHECK_THAT(only_warning(view_of(appwrapper("  - template: 7\n"))),
             Catch::StartsWith("wrapped objects (") && Catch::Contains("Cannot index number"));
  // Its own problems, named by where it is.
  CHECK_THAT(only_warning(view_of(appwrapper(
                 "  - template: {apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: p}, spec: "
                 "{pytorchReplicaSpecs: {Master: {replicas: two, template: {spec: {containers: []}}}}}}\n"))),
             Catch::StartsWith("wrapped kubeflow.org/v1 PyTorchJob at /spec/components/0/template: component replica"));
  // Nothing wrapped that makes pods, or no catalog to read them with.
  CHECK_THAT(only_warning(view_of(appwrapper("  []\n"))), Catch::StartsWith("no pod template or pod spec"));
  CHECK_THAT(only_warning(view_of(appwrapper("  - " + kPyTorchJob.substr(5)), view::ViewOptions{})),
             Catch::Contains("no catalog to read it with"));
}

}  // namespace wm
