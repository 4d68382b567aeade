// `workload-map get`: the live cluster as workloads, one row each (docs/cli.md).
#include <iostream>

#include "cli/cluster_snapshot.h"
#include "cli/commands.h"
#include "cli/live_filter.h"
#include "cli/table.h"
#include "live/inventory.h"
#include "live/live_json.h"
#include "mapper/view/resources.h"

namespace wm::cli {

namespace {

struct GetOptions {
  ClusterOptions cluster;
  std::string target, selector, phase, format = "table";
};

void print_table(const std::vector<live::LiveWorkload>& workloads, bool all_namespaces, bool wide) {
  std::vector<std::string> header = {"KIND", "NAME", "PHASE", "PODS", "GPUS", "SCHEDULER", "QUEUE", "GANG"};
  if (all_namespaces) header.insert(header.begin(), "NAMESPACE");
  if (wide) header.insert(header.end(), {"SCHEDULED", "PROFILE", "REQUESTS"});
  Table table(header);
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  for (const auto& w : workloads) {
    std::vector<std::string> row = {w.kind,
                                    w.name,
                                    w.phase,
                                    std::to_string(w.pods.running) + "/" + std::to_string(w.pods.expected),
                                    std::to_string(w.gpus),
                                    w.scheduler,
                                    or_dash(w.queue),
                                    live::gang_summary(w)};
    if (all_namespaces) row.insert(row.begin(), w.namespace_name);
    if (wide)
      row.insert(row.end(),
                 {std::to_string(w.pods.scheduled), or_dash(w.profile), non_gpu_requests(w.view.total_requests)});
    table.add(std::move(row));
  }
  table.print(std::cout);
}

int get(const GetOptions& o) {
  auto filter = LiveFilter::make(o.target, o.selector, o.phase);
  if (!filter) return kUsage;
  auto read = read_cluster(o.cluster, {});
  if (!read) return kInvalid;
  std::vector<live::LiveWorkload> workloads;
  for (auto& w : live::live_workloads(read->state, read->snapshot,
                                      [&](const live::LiveObject& root) { return filter->wants(root); }))
    if (filter->wants_phase(w.phase)) workloads.push_back(std::move(w));
  for (const auto& note : read->snapshot.notes) std::cerr << "note: " << note << "\n";
  if (o.format == "json") {
    std::cout << live::workloads_json(workloads, read->snapshot.notes) << "\n";
  } else if (workloads.empty()) {
    std::cerr << "no workloads" << (read->namespace_name.empty() ? "" : " in namespace " + read->namespace_name)
              << "\n";
  } else {
    print_table(workloads, read->namespace_name.empty(), o.format == "wide");
  }
  return kOk;
}

}  // namespace

void add_get(CLI::App& app, int& status) {
  auto o = std::make_shared<GetOptions>();
  CLI::App* command = app.add_subcommand(
      "get", "list the cluster's workloads: phase, pods, GPUs, scheduler, queue and gang, one row each");
  command->add_option("KIND[/NAME]", o->target, "only this kind (JobSet, jobsets, jobset.jobset.x-k8s.io), or object");
  command->add_option("-l,--selector", o->selector, "only workloads with these labels (k=v, k!=v, k in (a,b), !k)");
  command->add_option("--phase", o->phase,
                      "only workloads in this phase (Pending, Running, Initializing, Degraded, Suspended, Completed, "
                      "Failed, Unknown)");
  command->add_option("-o,--output", o->format, "table (default), wide, or json (stable, for scripts)")
      ->check(CLI::IsMember({"table", "wide", "json"}));
  add_cluster_options(*command, o->cluster);
  command->callback([o, &status] { status = get(*o); });
}

}  // namespace wm::cli
