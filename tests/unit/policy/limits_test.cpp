// Each limit check alone, over the mission's JobSet (3 pods of 4 GPUs, examples/jobset-12-gpus.yaml) as the built-in
// catalog reads it.
#include "policy/limits.h"

#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

namespace wm::policy {

namespace {

// The example JobSet, with `edit` applied to its YAML text, and the checks' view of it.
struct Checked {
  explicit Checked(const std::string& edit_from = "", const std::string& edit_to = "") {
    std::string yaml = test::read_file(test::source_path("examples/jobset-12-gpus.yaml"));
    if (!edit_from.empty()) yaml.replace(yaml.find(edit_from), edit_from.size(), edit_to);
    objects = test::parse_yaml(yaml);
    REQUIRE(objects.size() == 1);
    const auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    view = std::make_unique<view::WorkloadView>(view::build_view(*match.definition, *objects[0].doc));
  }
  std::vector<std::string> run(LimitCheck check, const Limits& limits, std::string_view queue = "") const {
    const LimitSubject subject{*view, *objects[0].doc, "JobSet team-a/train", "team-a", queue, queue_label, scheduler};
    std::vector<std::string> violations;
    check(limits, subject, violations);
    return violations;
  }
  std::vector<test::ParsedObject> objects;
  std::unique_ptr<view::WorkloadView> view;
  std::optional<std::string> queue_label = std::string("kai.scheduler/queue");
  std::optional<std::string> scheduler = std::string("kai-scheduler");
};

view::Quantity quantity(const char* text) { return *view::Quantity::parse(text); }

}  // namespace

TEST_CASE("Limits: a resource total over its limit names the total, each pod template's part and the limit") {
  const Checked jobset;
  Limits limits;
  limits.resources["nvidia.com/gpu"] = quantity("12");
  CHECK(jobset.run(check_resource_totals, limits).empty());  // at the limit is within it
  limits.resources["nvidia.com/gpu"] = quantity("8");
  const auto violations = jobset.run(check_resource_totals, limits);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0] ==
        "JobSet team-a/train asks for 12 nvidia.com/gpu across 3 pods (leader 1\xC3\x97"
        "4, workers 2\xC3\x97"
        "4); "
        "the limit for namespace team-a is 8");
  Limits memory;
  memory.resources["memory"] = quantity("1Gi");  // a resource it does not ask for is no violation
  CHECK(jobset.run(check_resource_totals, memory).empty());
}

TEST_CASE("Limits: more pods than the limit") {
  const Checked jobset;
  Limits limits;
  limits.max_pods = 3;
  CHECK(jobset.run(check_max_pods, limits).empty());
  limits.max_pods = 2;
  CHECK(jobset.run(check_max_pods, limits) ==
        std::vector<std::string>{"JobSet team-a/train has 3 pods; the limit for namespace team-a is 2 pods"});
}

TEST_CASE("Limits: a required queue names the label that sets it") {
  const Checked jobset;
  Limits limits;
  CHECK(jobset.run(check_queue_named, limits).empty());
  limits.require_queue = true;
  CHECK(jobset.run(check_queue_named, limits, "team-a").empty());
  CHECK(jobset.run(check_queue_named, limits) ==
        std::vector<std::string>{"JobSet team-a/train names no queue: set the label kai.scheduler/queue on it"});
}

TEST_CASE(
    "Limits: a pod template's own scheduler must be allowed, and must be the profile's when overrides are "
    "forbidden") {
  const Checked jobset("restartPolicy: Never\n            containers:",
                       "restartPolicy: Never\n            schedulerName: default-scheduler\n            containers:");
  Limits limits;
  limits.allowed_schedulers = {"kai-scheduler"};
  CHECK(jobset.run(check_allowed_schedulers, limits) ==
        std::vector<std::string>{"JobSet team-a/train: pod template replicatedjob/leader uses scheduler "
                                 "\"default-scheduler\"; allowed in namespace team-a: kai-scheduler"});
  CHECK(Checked().run(check_allowed_schedulers, limits).empty());  // none set: the profile's applies
  limits.forbid_scheduler_override = true;
  CHECK(jobset.run(check_scheduler_override, limits) ==
        std::vector<std::string>{"JobSet team-a/train: pod template replicatedjob/leader sets schedulerName "
                                 "\"default-scheduler\"; namespace team-a is scheduled by kai-scheduler: remove the "
                                 "field"});
}

TEST_CASE("Limits: containers with GPU limits must request cpu and memory") {
  Limits limits;
  limits.require_requests_with_gpus = true;
  const auto violations = Checked().run(check_requests_with_gpus, limits);
  REQUIRE(violations.size() == 2);
  CHECK(violations[0] ==
        "JobSet team-a/train: container trainer in replicatedjob/leader asks for GPUs in its limits "
        "but does not request cpu and memory");
  const Checked requested(
      "limits: {nvidia.com/gpu: 4}\n  - name: workers",
      "limits: {nvidia.com/gpu: 4}\n                requests: {cpu: 1, memory: 1Gi}\n  - name: workers");
  CHECK(requested.run(check_requests_with_gpus, limits).size() == 1);  // only the workers now
}

TEST_CASE("Limits: every check runs, in order, and none fires without its limit") {
  const Checked jobset;
  CHECK(limit_violations(Limits{}, LimitSubject{*jobset.view, *jobset.objects[0].doc, "JobSet team-a/train", "team-a",
                                                "", jobset.queue_label, jobset.scheduler})
            .empty());
  Limits limits;
  limits.max_pods = 1;
  limits.require_queue = true;
  const auto violations = limit_violations(limits, {*jobset.view, *jobset.objects[0].doc, "JobSet team-a/train",
                                                    "team-a", "", jobset.queue_label, jobset.scheduler});
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].find("has 3 pods") != std::string::npos);
  CHECK(violations[1].find("names no queue") != std::string::npos);
}

}  // namespace wm::policy

namespace wm::policy {

TEST_CASE("Limits: devices that cannot be counted are refused under a limit they could break, and only there") {
  Checked jobset;
  jobset.view->uncounted_devices = {
      {"pod template leader/leader: claim gpu (ResourceClaimTemplate team-a/later): not known to workload-map yet", {}},
      {"pod template workers/workers: claim all (ResourceClaimTemplate team-a/all): allocationMode All",
       {"nvidia.com/gpu"}}};
  CHECK(jobset.run(check_uncounted_devices, Limits{}).empty());  // no resource limit: warned of, never refused
  Limits memory;
  memory.resources["memory"] = quantity("1Ti");
  const auto under_memory = jobset.run(check_uncounted_devices, memory);
  REQUIRE(under_memory.size() == 1);  // the unknown template could hold anything; All is only GPUs
  CHECK(under_memory[0] ==
        "JobSet team-a/train: pod template leader/leader: claim gpu (ResourceClaimTemplate team-a/later): not known to "
        "workload-map yet; so its devices cannot be held to the limit for namespace team-a on memory");
  Limits gpus;
  gpus.resources["nvidia.com/gpu"] = quantity("100");
  const auto under_gpus = jobset.run(check_uncounted_devices, gpus);
  REQUIRE(under_gpus.size() == 2);
  CHECK_THAT(under_gpus[1], Catch::Contains("allocationMode All; so its devices cannot be held to the limit for "
                                            "namespace team-a on nvidia.com/gpu"));
}

}  // namespace wm::policy

namespace wm::policy {

TEST_CASE("Limits: pods of a referenced object that is not known are refused under any resource or pod limit") {
  Checked jobset;
  jobset.view->unresolved_references = {
      "reference template: WorkflowTemplate team-a/later (argoproj.io) is not known to workload-map"};
  CHECK(jobset.run(check_unresolved_references, Limits{}).empty());  // no limit: a warning, never a refusal
  Limits gpus;
  gpus.resources["nvidia.com/gpu"] = quantity("8");
  const auto under_gpus = jobset.run(check_unresolved_references, gpus);
  REQUIRE(under_gpus.size() == 1);
  CHECK(under_gpus[0] ==
        "JobSet team-a/train: reference template: WorkflowTemplate team-a/later (argoproj.io) is not known to "
        "workload-map; so its pods cannot be held to the limit for namespace team-a on nvidia.com/gpu");
  Limits pods;
  pods.max_pods = 100;
  CHECK_THAT(jobset.run(check_unresolved_references, pods).at(0), Catch::EndsWith("on pods"));
}

}  // namespace wm::policy
