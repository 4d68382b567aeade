#include <iostream>

#include "base/json/json_writer.h"
#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/workloads.h"
#include "cli/yaml_output.h"
#include "mapper/expr/json_patch_apply.h"
#include "mapper/view/pod_edits.h"
#include "policy/profiled_view.h"

namespace wm::cli {

namespace {

// "key=value", for --label and its kin; CLI11 reports the option's name when this refuses.
std::string key_value(const std::string& text) {
  auto eq = text.find('=');
  return eq == std::string::npos || eq == 0 ? "takes key=value, not " + text : "";
}

struct MutateOptions {
  std::vector<std::string> dirs, with;
  std::string file, output = "patch";
  std::vector<std::string> labels, annotations, root_labels, root_annotations;
  view::PodEdits pods;
};

json::StringPairs pairs(const std::vector<std::string>& texts) {
  json::StringPairs out;
  for (const auto& text : texts) {
    auto eq = text.find('=');
    out.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  }
  return out;
}

int mutate(MutateOptions o) {
  const std::string& output = o.output;
  std::vector<std::string> files = {o.file};
  view::PodEdits& pods = o.pods;
  pods.labels = pairs(o.labels);
  pods.annotations = pairs(o.annotations);
  view::RootEdits root;
  root.labels = pairs(o.root_labels);
  root.annotations = pairs(o.root_annotations);
  auto state = load_state(o.dirs, "", o.with, {o.file});
  if (!state) return kInvalid;

  int workloads = 0, status = kOk;
  int failures = for_each_workload(files, *state->catalog, [&](Workload& w) {
    if (!w.match.definition) {
      std::cerr << w.source.file << ":" << w.source.line << ": " << w.api_version << " " << w.kind << " " << w.name
                << ": no definition for this kind; left as it is\n";
      return;
    }
    if (++workloads > 1) {
      std::cerr << w.source.file << ":" << w.source.line << ": only the first workload of the file is mutated\n";
      return;
    }
    const view::WorkloadView view = policy::profiled_view(*state, *w.match.definition, w.doc, {}).view;
    std::vector<std::string> warnings = view.problems;
    std::string patch = view::make_patch(view, w.doc, pods, root, warnings);
    for (const auto& warning : warnings) std::cerr << "warning: " << warning << "\n";
    if (output == "patch") {
      std::cout << patch << "\n";
      return;
    }
    auto patched = expr::apply_json_patch(json::element_json(w.doc.root()), patch);
    if (!patched) {
      std::cerr << "mutate: " << patched.error() << "\n";
      status = kInvalid;
      return;
    }
    std::cout << (output == "yaml" ? json_to_yaml(*patched) : *patched + "\n");
  });
  if (failures) return kInvalid;
  if (workloads == 0) std::cerr << files[0] << ": no workload of a known kind\n";
  return status;
}

}  // namespace

void add_mutate(CLI::App& app, int& status) {
  auto o = std::make_shared<MutateOptions>();
  CLI::App* command = app.add_subcommand("mutate", "print the JSON Patch that edits every pod template");
  command->add_option("FILE", o->file, "a manifest; its first workload of a known kind is mutated")->required();
  command->add_option("--set-scheduler", o->pods.scheduler_name, "schedulerName of every pod template");
  command->add_option("--priority-class", o->pods.priority_class_name, "priorityClassName of every pod template");
  const CLI::Validator pair(key_value, "key=value");
  command->add_option("--label", o->labels, "a pod template label (repeatable)")->expected(1)->take_all()->check(pair);
  command->add_option("--annotation", o->annotations, "a pod template annotation (repeatable)")
      ->expected(1)
      ->take_all()
      ->check(pair);
  command->add_option("--root-label", o->root_labels, "a label of the workload object itself (repeatable)")
      ->expected(1)
      ->take_all()
      ->check(pair);
  command->add_option("--root-annotation", o->root_annotations, "an annotation of the workload object (repeatable)")
      ->expected(1)
      ->take_all()
      ->check(pair);
  command->add_option("-o,--output", o->output, "patch (default), or the patched object as json or yaml")
      ->check(CLI::IsMember({"patch", "json", "yaml"}));
  add_definitions_option(*command, o->dirs);
  add_with_option(*command, o->with);
  command->callback([o, &status] { status = mutate(*o); });
}

}  // namespace wm::cli
