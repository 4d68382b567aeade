#include "tests/cluster/scheduler_bed.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "mapper/view/gangs.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"
#include "policy/profile_choice.h"
#include "tests/support/test_support.h"

namespace wm::test {

namespace {

void run_script(const std::string& script, std::vector<std::string> args) {
  args.insert(args.begin(), source_path("tests/cluster/" + script));
  CommandResult r = run_command(args);
  INFO(script << ": " << r.err);
  REQUIRE(r.status == 0);
}

}  // namespace

std::string node_pool(const std::string& prefix) {
  static int counter = 0;
  return prefix + "-" + std::to_string(getpid() % 100000) + "-" + std::to_string(++counter);
}

void add_nodes(const std::string& pool, int count, int gpus, const std::vector<std::string>& labels) {
  std::vector<std::string> args = {
      Cluster::get().dir(), std::to_string(count), "--gpus", std::to_string(gpus), "--prefix", pool};
  for (const auto& label : labels) args.insert(args.end(), {"--label", label});
  run_script("nodes.sh", args);
}

void start_scheduler(const std::string& name) { run_script("scheduler.sh", {name, Cluster::get().dir()}); }

void start_operator(const std::string& name) { run_script("operator.sh", {name, Cluster::get().dir()}); }

std::string policy_for(const std::string& ns, const std::string& profile, const std::string& queue) {
  const std::string shipped = read_file(source_path("manifests/base/policy.yaml"));
  const size_t rules = shipped.find("\nrules:");
  REQUIRE(rules != std::string::npos);
  return shipped.substr(0, rules) + "\nrules:\n- name: scheduler-test\n  namespaces: [\"" + ns +
         "\"]\n  kinds: [\"*\"]\n  profile: " + profile + (queue.empty() ? "" : "\n  queue: {value: " + queue + "}") +
         "\n  failurePolicy: Fail\n  summaryAnnotations: true\n"
         // register_webhooks() probes with a Pod in a namespace of its own: the webhook must answer there too.
         "- name: registration-probe\n  namespaces: [\"webhook-probe-*\"]\n  kinds: [Pod]\n  profile: kai\n";
}

std::vector<std::string> cluster_side_args(const std::string& identity) {
  return {"--kubeconfig", Cluster::get().kubeconfig(), "--identity", identity, "--lease-namespace", "default",
          "--lease-name", "workload-map-" + identity};
}

std::string jobset_yaml(const JobSetShape& shape) {
  std::ostringstream y;
  y << "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " << shape.name
    << "\nspec:\n  replicatedJobs:\n";
  for (const auto& [job, pods] : shape.jobs) {
    y << "  - name: " << job << "\n    replicas: 1\n    template:\n      spec:\n        parallelism: " << pods
      << "\n        completions: " << pods
      << "\n        backoffLimit: 0\n        template:\n          spec:\n            restartPolicy: Never\n";
    if (!shape.scheduler.empty()) y << "            schedulerName: " << shape.scheduler << "\n";
    y << "            nodeSelector: {workload-map.io/node-pool: " << shape.pool << "}\n"
      << "            containers:\n            - name: train\n              image: registry.example/train:1\n"
      << "              resources: {limits: {nvidia.com/gpu: " << shape.gpus << "}}\n";
  }
  return y.str();
}

std::vector<long long> profile_gangs(const ParsedObject& object, const std::string& profile_name, bool whole_workload) {
  static const policy::Policy policy = policy::Policy::builtin();
  const policy::SchedulerProfile* profile = policy.profile(profile_name);
  REQUIRE(profile);
  auto match = builtin_catalog().find(object.api_version, object.kind);
  REQUIRE(match.definition);
  const view::WorkloadView view = view::build_view(
      *match.definition, *object.doc, policy::view_options_for(*profile, match.definition->gvk.group, object.kind));
  std::vector<long long> out;
  for (const auto& g : view::expanded_gangs(view.gangs, 1000)) out.push_back(g.min_member);
  if (whole_workload && out.size() == 1 && out[0] > 0) out[0] = view.total_pods;
  return out;
}

long long profile_min_member(const std::string& yaml, const std::string& profile) {
  auto objects = parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  const std::vector<long long> gangs = profile_gangs(objects[0], profile);
  REQUIRE(gangs.size() == 1);
  return gangs[0];
}

PodCounts count_pods(const std::string& ns, const std::string& selector) {
  CommandResult r =
      Cluster::get().kubectl({"get", "pods", "-n", ns, "-l", selector, "-o",
                              "jsonpath={range .items[*]}{.spec.nodeName}{\" \"}{.status.phase}{\"\\n\"}{end}"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  PodCounts counts;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    ++counts.total;
    const size_t space = line.find(' ');
    const std::string node = line.substr(0, space), phase = line.substr(space + 1);
    if (!node.empty()) ++counts.bound;
    if (phase == "Running") ++counts.running;
    if (phase == "Succeeded") ++counts.succeeded;
  }
  return counts;
}

void complete_pods(const std::string& ns, const std::string& selector) {
  CommandResult r = Cluster::get().kubectl(
      {"annotate", "pods", "-n", ns, "-l", selector, "--overwrite", "workload-map.io/test-complete=true"});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

std::string describe(const std::string& ns) {
  const Cluster& c = Cluster::get();
  std::string text =
      c.kubectl({"get", "pods,podgroups.scheduling.x-k8s.io,podgroups.scheduling.volcano.sh", "-n", ns, "-o", "wide"})
          .out;
  text += c.kubectl({"get", "events", "-n", ns, "--sort-by", ".lastTimestamp"}).out;
  return text;
}

void kubectl_apply(const std::string& ns, const std::string& yaml) {
  CommandResult r = Cluster::get().kubectl({"apply", "-n", ns, "-f", "-"}, yaml);
  INFO(r.err);
  REQUIRE(r.status == 0);
}

bool stays(const std::function<bool()>& check, std::chrono::seconds duration) {
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!check()) return false;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return check();
}

}  // namespace wm::test
