#include <iostream>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "cli/workloads.h"
#include "mapper/view/gangs.h"
#include "mapper/view/resources.h"
#include "mapper/view/view_json.h"
#include "mapper/view/workload_view.h"
#include "policy/gang_values.h"
#include "policy/profiled_view.h"
#include "policy/topology.h"

namespace wm::cli {

namespace {

void print_table(const view::WorkloadView& view, const Workload& w) {
  std::cout << w.kind << " " << (view.namespace_name.empty() ? "" : view.namespace_name + "/")
            << (view.name.empty() ? view.generate_name + "*" : view.name) << "  (" << w.source.file << ":"
            << w.source.line << ", definition " << view.definition->name << ")\n";
  Table table({"COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPUS", "REQUESTS/POD", "LOCATION"});
  for (const auto& c : view.components)
    for (const auto& i : c.instances) {
      if (i.shape == view::PodShape::Logical) {
        table.add({c.name, i.id, std::to_string(i.replicas), "-", "-", "-", "(logical)"});
        continue;
      }
      std::string replicas = std::to_string(i.replicas);
      if (i.min_replicas || i.max_replicas)
        replicas += " (" + (i.min_replicas ? std::to_string(*i.min_replicas) : "") + ".." +
                    (i.max_replicas ? std::to_string(*i.max_replicas) : "") + ")";
      table.add({c.name, i.id, replicas, std::to_string(i.pods), std::to_string(view::gpu_count(i.total_requests)),
                 non_gpu_requests(i.pod_requests), i.location});
    }
  table.add({"TOTAL", "", "", std::to_string(view.total_pods), std::to_string(view::gpu_count(view.total_requests)),
             non_gpu_requests(view.total_requests), ""});
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
  for (const auto& [claim, devices] : view.shared_claims) {
    std::cout << "shared claim " << claim << " (once for the workload):";
    for (const auto& [name, q] : devices) std::cout << " " << name << "=" << q.str(view::is_byte_resource(name));
    std::cout << "\n";
  }
  for (const auto& u : view.uncounted_devices) std::cout << "devices not counted: " << u.what << "\n";
  for (const auto& u : view.unresolved_references) std::cout << "pods not counted: " << u << "\n";
  for (const auto& problem : view.problems) std::cout << "not understood: " << problem << "\n";
  std::cout << "\n";
}

struct InspectOptions {
  std::vector<std::string> dirs, files, with;
  std::string format = "table", profile_name, policy_file, queue, namespace_name = "default";
  bool status = false;
};

// What the profile does with the gangs' topology: what it writes, what it drops.
struct TopologyShown {
  std::vector<std::string> writes, dropped;
};

void print_topology(const view::WorkloadView& view, const TopologyShown& shown) {
  auto level = [](const std::string& l) { return l.empty() ? std::string("-") : l; };
  for (const auto& g : view.gangs) {
    if (!g.topology) continue;
    const catalog::TopologyConstraint& t = *g.topology;
    std::cout << "gang " << g.name << " topology " << t.topology_name << ": required " << level(t.required_level)
              << ", preferred " << level(t.preferred_level);
    if (t.has_sub_group_levels())
      std::cout << "; each sub-group: required " << level(t.sub_group_required_level) << ", preferred "
                << level(t.sub_group_preferred_level);
    std::cout << "\n";
  }
  for (const auto& w : shown.writes) std::cout << "topology writes " << w << "\n";
  for (const auto& d : shown.dropped) std::cout << "topology dropped: " << d << "\n";
}

// A manifest's object that no definition reads: said, in the output's format.
void print_unknown(const Workload& w, bool json, bool& first) {
  const std::string& covered = w.match.uncovered_version_of;
  if (json) {
    std::cout << (first ? "" : ",") << R"({"apiVersion":)" << json::json_string(w.api_version) << R"(,"kind":)"
              << json::json_string(w.kind) << R"(,"name":)" << json::json_string(w.name) << R"(,"known":false)";
    if (!covered.empty()) std::cout << R"(,"definitionsRead":)" << json::json_string(covered);
    std::cout << "}";
    first = false;
    return;
  }
  std::cout << w.kind << " " << w.name << "  (" << w.source.file << ":" << w.source.line << "): no definition for "
            << w.api_version << " " << w.kind
            << (covered.empty() ? "; not a workload this catalog knows"
                                : "; the definitions of this kind read " + covered + ", not this version")
            << "\n\n";
}

// The profile --profile names, or null without --profile and --policy; prints the profiles there are when it names
// none.
std::optional<const policy::SchedulerProfile*> chosen_profile(const InspectOptions& o, const policy::Policy& policy) {
  if (o.profile_name.empty() && o.policy_file.empty()) return nullptr;
  if (const policy::SchedulerProfile* profile = policy.profile(o.profile_name)) return profile;
  std::cerr << "inspect: no profile " << o.profile_name << " in "
            << (o.policy_file.empty() ? "the built-in policy" : o.policy_file) << "; it has:";
  for (const auto& name : policy.profile_names()) std::cerr << " " << name;
  std::cerr << "\n";
  return std::nullopt;
}

// The profile, its rule and the objects it needs first, then the view.
std::string profiled_json(const view::WorkloadView& view, const policy::SchedulerProfile* profile,
                          const policy::GangObjects& objects, const TopologyShown& topology) {
  std::string out = view::view_json(view);
  if (!profile) return out;
  std::string head = R"({"profile":)" + json::json_string(profile->name) + R"(,"gangRule":")" +
                     view::gang_rule_name(profile->gang_rule) + R"(","podGroups":[)";
  for (size_t i = 0; i < objects.pod_groups.size(); ++i) head += (i ? "," : "") + objects.pod_groups[i];
  head += "],";
  auto strings = [&](const char* key, const std::vector<std::string>& list) {
    if (list.empty()) return;
    head += std::string("\"") + key + "\":[";
    for (size_t i = 0; i < list.size(); ++i) head += (i ? "," : "") + json::json_string(list[i]);
    head += "],";
  };
  strings("topologyWrites", topology.writes);
  strings("topologyDropped", topology.dropped);
  if (!objects.workload.empty()) head += R"("workload":)" + objects.workload + ",";
  return head + out.substr(1);
}

void print_objects(const policy::GangObjects& objects) {
  if (!objects.workload.empty()) std::cout << "workload " << objects.workload << "\n";
  for (const auto& pg : objects.pod_groups) std::cout << "podGroup " << pg << "\n";
  if (!objects.no_workload.empty()) std::cout << "no workload object: " << objects.no_workload << "\n";
  if (!objects.pod_groups.empty()) std::cout << "\n";
}

int inspect(const InspectOptions& o) {
  const bool json = o.format == "json";
  // A scheduler profile decides how gangs are counted and named; the built-in policy holds the shipped ones.
  // The policy also says what DRA DeviceClasses count as, so it is read even without a profile.
  auto state = load_state(o.dirs, o.policy_file, o.with, o.files);
  if (!state) return kInvalid;
  const std::optional<const policy::SchedulerProfile*> profile = chosen_profile(o, *state->policy);
  if (!profile) return kUsage;
  bool first = true;
  if (json) std::cout << "[";
  int failures = for_each_workload(o.files, *state->catalog, [&](Workload& w) {
    if (!w.match.definition) return print_unknown(w, json, first);
    // As the profile's scheduler counts this kind, else by the definitions' own minimums.
    policy::ProfiledViewRequest request;
    request.profile = *profile;
    request.status = o.status;
    request.inspect_detail = true;
    // The topology of the policy's rule for the object, in its namespace (else --namespace).
    std::string namespace_name(json::string_at(w.doc.root(), "/metadata/namespace"));
    if (namespace_name.empty()) namespace_name = o.namespace_name;
    const policy::Rule* rule = state->policy->match(namespace_name, w.match.definition->gvk.group, w.kind);
    if (rule && rule->topology) request.topology = &*rule->topology;
    policy::ProfiledView profiled = policy::profiled_view(*state, *w.match.definition, w.doc, request);
    view::WorkloadView& view = profiled.view;
    policy::GangObjects objects;
    TopologyShown topology;
    if (*profile) {
      objects = policy::gang_objects(profiled, **profile, w.doc.root(), view.given_name(), o.queue);
      topology = {policy::topology_writes(*profiled.edits, view), policy::dropped_topology(*profiled.edits, view)};
      view::name_gangs_as_admitted(view);
    }
    if (json) {
      std::cout << (first ? "" : ",") << profiled_json(view, *profile, objects, topology);
      first = false;
    } else {
      print_table(view, w);
      print_topology(view, topology);
      print_objects(objects);
    }
  });
  if (json) std::cout << "]\n";
  return failures ? kInvalid : kOk;
}

}  // namespace

void add_inspect(CLI::App& app, int& status) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect", "show each workload's components, pod templates, replicas, pods, GPUs and requests");
  command->add_option("FILE", o->files, "manifests (YAML or JSON, several documents each)")->required();
  command->add_option("-o,--output", o->format, "table (default) or json, for machines")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--status", o->status, "map each workload's status to phases");
  CLI::Option* profile = command->add_option(
      "--profile", o->profile_name, "count and name gangs as this scheduler profile does, with the PodGroups it needs");
  command->add_option("--policy", o->policy_file, "the policy whose profiles --profile names (default: built-in)")
      ->needs(profile);
  command->add_option("--queue", o->queue, "the queue the PodGroups name")->needs(profile);
  command->add_option("-n,--namespace", o->namespace_name,
                      "where the policy's rules are matched (for their topology) when an object names no namespace; "
                      "default: default");
  add_definitions_option(*command, o->dirs);
  add_with_option(*command, o->with);
  command->callback([o, &status] { status = inspect(*o); });
}

}  // namespace wm::cli
