// `workload-map describe KIND/NAME`: one live workload whole: its components, its objects and pods, its gangs, and why
// it waits, in the scheduler's words and workload-map's own (docs/cli.md).
#include <iostream>
#include <map>

#include "base/json/json_read.h"
#include "cli/cluster_snapshot.h"
#include "cli/commands.h"
#include "cli/live_filter.h"
#include "cli/table.h"
#include "live/inventory.h"
#include "live/live_json.h"
#include "live/why.h"
#include "mapper/view/resources.h"

namespace wm::cli {

namespace {

struct DescribeOptions {
  ClusterOptions cluster;
  std::string target, format = "text";
};

std::string other_requests(const view::ResourceList& list) {
  const std::string others = non_gpu_requests(list);
  return others == "-" ? "" : ", " + others;
}

// A message of several lines, its later lines indented under the first.
std::string indented(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 5) text.replace(at, 1, "\n    ");
  return text;
}

void print_summary(const live::LiveWorkload& w) {
  std::cout << w.kind << " " << w.namespace_name << "/" << w.name << "  (" << w.api_version << ", definition "
            << (w.view.definition ? w.view.definition->name : "none") << ", profile "
            << (w.profile.empty() ? "none" : w.profile) << ")\n";
  std::cout << "phase:      " << w.phase;
  if (!w.view.phases.empty()) {
    std::cout << " (definition:";
    for (const auto& p : w.view.phases) std::cout << " " << p;
    std::cout << ")";
  }
  std::cout << "\nscheduler:  " << w.scheduler << "\nqueue:      " << (w.queue.empty() ? "-" : w.queue)
            << "\npods:       " << w.pods.running << " running, " << w.pods.scheduled << " scheduled, "
            << w.pods.existing << " exist, " << w.pods.expected << " expected"
            << "\nrequests:   " << w.gpus << " GPUs" << other_requests(w.view.total_requests)
            << "\ngang:       " << live::gang_summary(w) << "\n\n";
}

void print_components(const view::WorkloadView& view) {
  Table table({"COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPUS", "REQUESTS/POD"});
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      if (i.shape != view::PodShape::Logical)
        table.add({c.name, i.id, std::to_string(i.replicas), std::to_string(i.pods),
                   std::to_string(view::gpu_count(i.total_requests)), non_gpu_requests(i.pod_requests)});
  table.print(std::cout);
  std::cout << "\n";
}

// The workload's objects, each with the pods it controls; the pods the workload controls itself first.
void print_objects(const live::LiveWorkload& w, const live::Snapshot& snapshot) {
  std::map<std::string, std::vector<const live::LivePod*>> pods_of;
  for (const auto& p : w.pod_list) pods_of[p.stand_in ? "" : p.owner].push_back(&p);
  auto pods = [&](const std::string& owner, const char* indent) {
    for (const live::LivePod* p : pods_of[owner])
      std::cout << indent << "pod " << p->name << "  " << (p->phase.empty() ? "-" : p->phase) << "  "
                << (p->node.empty() ? "(no node)" : p->node) << "\n";
  };
  std::cout << "objects:\n";
  pods(w.kind + "/" + w.name, "  ");
  for (size_t i : w.tree.children) {
    const live::LiveObject& o = snapshot.objects[i];
    const std::string id = o.kind + "/" + std::string(json::string_at(o.object, "/metadata/name"));
    std::cout << "  " << id << "\n";
    pods(id, "    ");
  }
  if (!pods_of[""].empty()) std::cout << "  stand-ins (holding places for its pods):\n";
  pods("", "    ");
  std::cout << "\n";
}

void print_why(const live::LiveWorkload& w, const std::vector<live::Reason>& why) {
  for (const auto& g : w.gangs)
    std::cout << "gang object " << g.kind << " " << g.name << ": min member "
              << (g.min_member ? std::to_string(*g.min_member) : "-") << ", "
              << (g.state.empty() ? "no state recorded" : g.state) << "\n";
  if (why.empty()) {
    std::cout << (w.phase == "Pending" ? "why it waits: nothing says yet\n" : "");
    return;
  }
  std::cout << (w.phase == "Pending" ? "why it waits:\n" : "what is said of it:\n");
  for (const auto& r : why) std::cout << "  " << r.source << ": " << indented(r.text) << "\n";
}

int describe(const DescribeOptions& o) {
  auto filter = LiveFilter::make(o.target, "", "");
  if (!filter) return kUsage;
  if (filter->kind.empty() || filter->name.empty()) {
    std::cerr << "describe: name one workload as KIND/NAME (JobSet/train)\n";
    return kUsage;
  }
  auto read = read_cluster(o.cluster, {.events = true, .nodes = true});
  if (!read) return kInvalid;
  auto workloads = live::live_workloads(read->state, read->snapshot,
                                        [&](const live::LiveObject& root) { return filter->wants(root); });
  for (const auto& note : read->snapshot.notes) std::cerr << "note: " << note << "\n";
  if (workloads.empty()) {
    std::cerr << "describe: no workload " << o.target
              << (read->namespace_name.empty() ? "" : " in namespace " + read->namespace_name)
              << " (a part of a workload is described with its workload)\n";
    return kInvalid;
  }
  for (const auto& w : workloads) {
    const std::vector<live::Reason> why = live::why_waiting(read->state, read->snapshot, w);
    if (o.format == "json") {
      std::cout << live::workload_detail_json(w, why) << "\n";
      continue;
    }
    print_summary(w);
    if (w.view.definition) print_components(w.view);
    print_objects(w, read->snapshot);
    print_why(w, why);
  }
  return kOk;
}

}  // namespace

void add_describe(CLI::App& app, int& status) {
  auto o = std::make_shared<DescribeOptions>();
  CLI::App* command = app.add_subcommand(
      "describe", "show one live workload: its components, objects and pods, its gangs, and why it waits");
  command->add_option("KIND/NAME", o->target, "the workload (JobSet/train, jobsets/train)")->required();
  command->add_option("-o,--output", o->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  add_cluster_options(*command, o->cluster);
  command->callback([o, &status] { status = describe(*o); });
}

}  // namespace wm::cli
