#include <iostream>

#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/workloads.h"
#include "cli/yaml_output.h"
#include "mapper/json_patch_apply.h"
#include "mapper/json_writer.h"
#include "mapper/pod_edits.h"

namespace wm::cli {

namespace {

bool key_value(const std::string& text, StringPairs& into) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  into.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  return true;
}

}  // namespace

int mutate(const Args& raw) {
  Args args = raw;
  std::vector<std::string> dirs, files;
  if (!take_definition_dirs(args, dirs)) return kUsage;
  PodEdits pods;
  RootEdits root;
  std::string output = "patch";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--set-scheduler" && has_value) {
      pods.scheduler_name = args[++i];
    } else if (a == "--priority-class" && has_value) {
      pods.priority_class_name = args[++i];
    } else if ((a == "--label" || a == "--annotation" || a == "--root-label" || a == "--root-annotation") &&
               has_value) {
      StringPairs& into = a == "--label"        ? pods.labels
                          : a == "--annotation" ? pods.annotations
                          : a == "--root-label" ? root.labels
                                                : root.annotations;
      if (!key_value(args[++i], into)) {
        std::cerr << "mutate: " << a << " takes key=value, not " << args[i] << "\n";
        return kUsage;
      }
    } else if (a == "-o" && has_value) {
      output = args[++i];
      if (output != "patch" && output != "json" && output != "yaml") {
        std::cerr << "mutate: -o takes patch, json or yaml\n";
        return kUsage;
      }
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "mutate: unknown option " << a << "\n";
      return kUsage;
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 1) {
    std::cerr << "usage: workload-map mutate FILE [--set-scheduler NAME] [--label k=v]... [--annotation k=v]... "
                 "[--priority-class NAME] [--root-label k=v] [--root-annotation k=v] [-o patch|json|yaml]\n";
    return kUsage;
  }
  auto catalog = load_catalog(dirs);
  if (!catalog) return kInvalid;

  int workloads = 0, status = kOk;
  int failures = for_each_workload(files, *catalog, [&](Workload& w) {
    if (!w.match.definition) {
      std::cerr << w.source.file << ":" << w.source.line << ": " << w.api_version << " " << w.kind << " " << w.name
                << ": no definition for this kind; left as it is\n";
      return;
    }
    if (++workloads > 1) {
      std::cerr << w.source.file << ":" << w.source.line << ": only the first workload of the file is mutated\n";
      return;
    }
    WorkloadView view = build_view(*w.match.definition, w.doc);
    std::vector<std::string> warnings = view.warnings;
    std::string patch = make_patch(view, w.doc, pods, root, warnings);
    for (const auto& warning : warnings) std::cerr << "warning: " << warning << "\n";
    if (output == "patch") {
      std::cout << patch << "\n";
      return;
    }
    std::string error;
    std::string patched = apply_json_patch(element_json(w.doc.root()), patch, error);
    if (patched.empty()) {
      std::cerr << "mutate: " << error << "\n";
      status = kInvalid;
      return;
    }
    std::cout << (output == "yaml" ? json_to_yaml(patched) : patched + "\n");
  });
  if (failures) return kInvalid;
  if (workloads == 0) std::cerr << files[0] << ": no workload of a known kind\n";
  return status;
}

}  // namespace wm::cli
