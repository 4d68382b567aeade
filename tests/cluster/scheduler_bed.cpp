#include "tests/cluster/scheduler_bed.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "base/json/json_read.h"
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

namespace wm::test {

simdjson::dom::element live_json(simdjson::dom::parser& parser, const std::string& ns, const std::string& policy_yaml,
                                 std::vector<std::string> args) {
  const std::string policy = write_temp(ns + "-live-policy.yaml", policy_yaml);
  args.insert(args.begin(), WM_CLI);
  args.insert(args.end(), {"-n", ns, "-o", "json", "--kubeconfig", Cluster::get().kubeconfig(), "--policy", policy});
  CommandResult r = run_command(args);
  INFO(args[1] << ": " << r.err);
  REQUIRE(r.status == 0);
  simdjson::dom::element out;
  REQUIRE(parser.parse(r.out).get(out) == simdjson::SUCCESS);
  return out;
}

namespace {

// Whether `text` is one of the strings anywhere in `e`.
bool holds_string(simdjson::dom::element e, std::string_view text) {
  std::string_view s;
  simdjson::dom::array items;
  simdjson::dom::object fields;
  if (e.get_string().get(s) == simdjson::SUCCESS) return s == text;
  if (e.get_array().get(items) == simdjson::SUCCESS)
    for (simdjson::dom::element item : items)
      if (holds_string(item, text)) return true;
  if (e.get_object().get(fields) == simdjson::SUCCESS)
    for (auto field : fields)
      if (holds_string(field.value, text)) return true;
  return false;
}

// The one item of `get KIND/NAME`.
simdjson::dom::element one_item(simdjson::dom::parser& parser, const std::string& ns, const std::string& policy_yaml,
                                const std::string& kind, const std::string& name) {
  simdjson::dom::element got = live_json(parser, ns, policy_yaml, {"get", kind + "/" + name});
  simdjson::dom::array items = got["items"].get_array().value();
  REQUIRE(items.size() == 1);
  return items.at(0).value();
}

long long number_at(simdjson::dom::element e, const char* pointer) {
  int64_t n = -1;
  return e.at_pointer(pointer).get_int64().get(n) == simdjson::SUCCESS ? n : -1;
}

// The webhook's workload metrics count `item` (one row of `get -o json`) as `get` does, within a few seconds: the one
// workload of its namespace, kind and phase, its pods expected and scheduled, its GPUs, its gangs waiting.
void check_metrics(uint16_t port, simdjson::dom::element item) {
  const std::string labels = "namespace=\"" + string_at(item, "/namespace") + "\",kind=\"" + string_at(item, "/kind") +
                             "\",phase=\"" + string_at(item, "/phase") + "\"";
  const std::string waiting_series = "workload_map_gangs_waiting{namespace=\"" + string_at(item, "/namespace") +
                                     "\",kind=\"" + string_at(item, "/kind") + "\",scheduler=\"" +
                                     string_at(item, "/scheduler") + "\"}";
  long long waiting = 0;
  const simdjson::dom::array gangs = item["gang"]["objects"].get_array().value();
  for (simdjson::dom::element g : gangs) waiting += g["waiting"].get_bool().value() ? 1 : 0;
  const long long gpus = number_at(item, "/gpus");
  const auto says = [&] {
    return metric(port, "workload_map_workloads{" + labels + "}") == 1 &&
           metric(port, "workload_map_workload_pods{" + labels + ",state=\"expected\"}") ==
               number_at(item, "/pods/expected") &&
           metric(port, "workload_map_workload_pods{" + labels + ",state=\"scheduled\"}") ==
               number_at(item, "/pods/scheduled") &&
           metric(port, "workload_map_workload_requests{" + labels + ",resource=\"nvidia.com/gpu\"}") ==
               (gpus > 0 ? gpus : -1) &&
           metric(port, waiting_series) == (waiting > 0 ? waiting : -1);
  };
  const bool said = eventually(says, std::chrono::seconds(10));
  std::string series;
  std::istringstream text(HttpsClient(port).get("/metrics").body);
  for (std::string line; std::getline(text, line);)
    if (line.find(string_at(item, "/namespace")) != std::string::npos) series += line + "\n";
  INFO("the webhook's series of the namespace:\n" << series);
  CHECK(said);
}

}  // namespace

std::string check_live(const std::string& ns, const std::string& policy_yaml, const std::string& kind,
                       const std::string& name, const LiveExpectation& expected) {
  simdjson::dom::parser parser;
  simdjson::dom::element item = one_item(parser, ns, policy_yaml, kind, name);
  INFO(simdjson::to_string(item));
  CHECK(string_at(item, "/phase") == expected.phase);
  CHECK(number_at(item, "/pods/expected") == expected.pods);
  CHECK(number_at(item, "/pods/scheduled") == expected.scheduled);
  if (expected.gpus >= 0) CHECK(number_at(item, "/gpus") == expected.gpus);
  CHECK(string_at(item, "/gang/summary").starts_with(expected.gang));
  if (expected.metrics_port) check_metrics(expected.metrics_port, item);
  if (!expected.describe) return {};
  // describe quotes the scheduler's gang objects, word for word: each reason is in the object the API server holds.
  simdjson::dom::parser described_parser;
  simdjson::dom::element described = live_json(described_parser, ns, policy_yaml, {"describe", kind + "/" + name});
  std::string said;
  // Arrays held by name: a range-for over get_array().value() would iterate a dead temporary.
  const simdjson::dom::array objects = described["gang"]["objects"].get_array().value(),
                             why = described["why"].get_array().value();
  for (simdjson::dom::element g : objects) {
    const std::string group(json::split_api_version(string_at(g, "/apiVersion")).first);
    simdjson::dom::parser object_parser;
    simdjson::dom::element object = Cluster::get().get_json(
        object_parser, {"get", string_at(g, "/kind") + "." + group, string_at(g, "/name"), "-n", ns});
    const simdjson::dom::array reasons = g["reasons"].get_array().value();
    for (simdjson::dom::element reason : reasons) {
      std::string_view text = reason.get_string().value();
      CHECK(holds_string(object, text));
      said += std::string(text) + "\n";
    }
  }
  for (simdjson::dom::element r : why) said += string_at(r, "/source") + ": " + string_at(r, "/text") + "\n";
  return said;
}

}  // namespace wm::test
