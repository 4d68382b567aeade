#include <iostream>

#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "cli/workloads.h"
#include "mapper/gangs.h"
#include "mapper/resources.h"
#include "mapper/view_json.h"
#include "mapper/workload_view.h"
#include "webhook/gang_values.h"

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

// The objects (PodGroups) the profile needs for this workload's gangs, as its admission would name them.
std::vector<std::string> objects_for(const webhook::SchedulerProfile& profile, const WorkloadView& view,
                                     const Workload& w, const std::string& queue) {
  const webhook::ProfileEdits& edits = webhook::Policy::edits_for(profile, view.gvk.group, view.gvk.kind);
  if (!edits.pod_group) return {};
  const std::string workload = view.name.empty() ? view.generate_name : view.name;
  return webhook::pod_group_objects(*edits.pod_group, view, profile.gang_rule, w.doc.root(), workload, queue);
}

// Each gang by itself, under the name its pods and PodGroup get at admission.
void name_gangs_as_profile(WorkloadView& view) {
  const std::string workload = view.name.empty() ? view.generate_name : view.name;
  std::vector<GangGroupView> named;
  for (const auto& g : view.gangs)
    for (auto& one : expanded_gangs({g}, 10000)) {
      one.name = view.gangs.size() <= 1 && g.copies <= 1 ? workload : workload + "-" + one.name;
      named.push_back(std::move(one));
    }
  view.gangs = std::move(named);
}

}  // namespace

int inspect(const Args& raw) {
  Args args = raw;
  std::vector<std::string> dirs, files;
  if (!take_definition_dirs(args, dirs)) return kUsage;
  bool json = false;
  ViewOptions options;
  std::string profile_name, policy_file, queue;
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
    } else if ((args[i] == "--profile" || args[i] == "--policy" || args[i] == "--queue") && i + 1 < args.size()) {
      (args[i] == "--profile" ? profile_name : args[i] == "--policy" ? policy_file : queue) = args[i + 1];
      ++i;
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << "inspect: unknown option " << args[i] << "\n";
      return kUsage;
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: workload-map inspect [-o json] [--status] [--profile NAME [--policy FILE] [--queue Q]] "
                 "[--definitions DIR] FILE...\n";
    return kUsage;
  }
  auto catalog = load_catalog(dirs);
  if (!catalog) return kInvalid;
  // A scheduler profile decides how gangs are counted and named; the built-in policy holds the shipped ones.
  std::optional<webhook::Policy> policy;
  const webhook::SchedulerProfile* profile = nullptr;
  if (!profile_name.empty() || !policy_file.empty()) {
    policy = load_policy(policy_file);
    if (!policy) return kInvalid;
    if (profile_name.empty()) {
      std::cerr << "inspect: --policy needs --profile NAME\n";
      return kUsage;
    }
    profile = policy->profile(profile_name);
    if (!profile) {
      std::cerr << "inspect: no profile " << profile_name << " in "
                << (policy_file.empty() ? "the built-in policy" : policy_file) << "; it has:";
      for (const auto& name : policy->profile_names()) std::cerr << " " << name;
      std::cerr << "\n";
      return kUsage;
    }
    options.gang_rule = profile->gang_rule;
  }

  bool first = true;
  if (json) std::cout << "[";
  int failures = for_each_workload(files, *catalog, [&](Workload& w) {
    if (!w.match.definition) {
      const std::string& covered = w.match.uncovered_version_of;
      if (json) {
        std::cout << (first ? "" : ",") << R"({"apiVersion":")" << w.api_version << R"(","kind":")" << w.kind
                  << R"(","name":")" << w.name << R"(","known":false)";
        if (!covered.empty()) std::cout << R"(,"definitionsRead":")" << covered << "\"";
        std::cout << "}";
        first = false;
      } else {
        std::cout << w.kind << " " << w.name << "  (" << w.source.file << ":" << w.source.line
                  << "): no definition for " << w.api_version << " " << w.kind
                  << (covered.empty() ? "; not a workload this catalog knows"
                                      : "; the definitions of this kind read " + covered + ", not this version")
                  << "\n\n";
      }
      return;
    }
    WorkloadView view = build_view(*w.match.definition, w.doc, options);
    std::vector<std::string> pod_groups;
    if (profile) {
      pod_groups = objects_for(*profile, view, w, queue);
      name_gangs_as_profile(view);
    }
    if (json) {
      std::string out = view_json(view);
      if (profile) {  // the profile, its rule and the objects it needs first, then the view
        std::string head = R"({"profile":")" + profile->name + R"(","gangRule":")" +
                           gang_rule_name(profile->gang_rule) + R"(","podGroups":[)";
        for (size_t i = 0; i < pod_groups.size(); ++i) head += (i ? "," : "") + pod_groups[i];
        out = head + "]," + out.substr(1);
      }
      std::cout << (first ? "" : ",") << out;
      first = false;
    } else {
      print_table(view, w);
      for (const auto& pg : pod_groups) std::cout << "podGroup " << pg << "\n";
      if (!pod_groups.empty()) std::cout << "\n";
    }
  });
  if (json) std::cout << "]\n";
  return failures ? kInvalid : kOk;
}

}  // namespace wm::cli
