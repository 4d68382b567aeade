#include <iostream>

#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "cli/workloads.h"
#include "mapper/resources.h"
#include "mapper/view_json.h"
#include "mapper/workload_view.h"

namespace wm::cli {

namespace {

std::string others(const ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    if (is_gpu_resource(name)) continue;
    if (!out.empty()) out += ",";
    out += name + "=" + q.str(is_byte_resource(name));
  }
  return out.empty() ? "-" : out;
}

void print_table(const WorkloadView& view, const Workload& w) {
  std::cout << w.kind << " " << (view.namespace_name.empty() ? "" : view.namespace_name + "/")
            << (view.name.empty() ? view.generate_name + "*" : view.name) << "  (" << w.source.file << ":"
            << w.source.line << ", definition " << view.definition->name << ")\n";
  Table table({"COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPUS", "REQUESTS/POD", "LOCATION"});
  for (const auto& c : view.components)
    for (const auto& i : c.instances) {
      if (i.shape == PodShape::Logical) {
        table.add({c.name, i.id, std::to_string(i.replicas), "-", "-", "-", "(logical)"});
        continue;
      }
      std::string replicas = std::to_string(i.replicas);
      if (i.min_replicas || i.max_replicas)
        replicas += " (" + (i.min_replicas ? std::to_string(*i.min_replicas) : "") + ".." +
                    (i.max_replicas ? std::to_string(*i.max_replicas) : "") + ")";
      table.add({c.name, i.id, replicas, std::to_string(i.pods), std::to_string(gpu_count(i.total_requests)),
                 others(i.pod_requests), i.location});
    }
  table.add({"TOTAL", "", "", std::to_string(view.total_pods), std::to_string(gpu_count(view.total_requests)),
             others(view.total_requests), ""});
  table.print(std::cout);
  for (const auto& g : view.gangs) {
    std::cout << "gang " << g.name << ": min member " << g.min_member << " (";
    for (size_t i = 0; i < g.members.size(); ++i) std::cout << (i ? ", " : "") << g.members[i];
    std::cout << ")\n";
  }
  if (!view.phases.empty()) {
    std::cout << "status:";
    for (const auto& p : view.phases) std::cout << " " << p;
    std::cout << "\n";
  }
  for (const auto& warning : view.warnings) std::cout << "warning: " << warning << "\n";
  std::cout << "\n";
}

}  // namespace

int inspect(const Args& raw) {
  Args args = raw;
  std::vector<std::string> dirs, files;
  if (!take_definition_dirs(args, dirs)) return kUsage;
  bool json = false;
  ViewOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) {
      std::string format = args[++i];
      if (format != "json" && format != "table") {
        std::cerr << "inspect: -o takes json or table\n";
        return kUsage;
      }
      json = format == "json";
    } else if (args[i] == "--status") {
      options.status = true;
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << "inspect: unknown option " << args[i] << "\n";
      return kUsage;
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: workload-map inspect [-o json] [--status] [--definitions DIR] FILE...\n";
    return kUsage;
  }
  auto catalog = load_catalog(dirs);
  if (!catalog) return kInvalid;

  bool first = true;
  if (json) std::cout << "[";
  int failures = for_each_workload(files, *catalog, [&](Workload& w) {
    if (!w.match.definition) {
      if (json) {
        std::cout << (first ? "" : ",") << R"({"apiVersion":")" << w.api_version << R"(","kind":")" << w.kind
                  << R"(","name":")" << w.name << R"(","known":false})";
        first = false;
      } else {
        std::cout << w.kind << " " << w.name << "  (" << w.source.file << ":" << w.source.line
                  << "): no definition for " << w.api_version << " " << w.kind
                  << "; not a workload this catalog knows\n\n";
      }
      return;
    }
    WorkloadView view = build_view(*w.match.definition, w.doc, options);
    if (w.match.other_version)
      view.warnings.insert(view.warnings.begin(), "no definition for " + w.api_version + "; used the one for " +
                                                      w.match.definition->gvk.api_version());
    if (json) {
      std::cout << (first ? "" : ",") << view_json(view);
      first = false;
    } else {
      print_table(view, w);
    }
  });
  if (json) std::cout << "]\n";
  return failures ? kInvalid : kOk;
}

}  // namespace wm::cli
