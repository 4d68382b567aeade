// --definitions DIR (repeatable): directories whose definitions extend or override the embedded catalog;
// --policy FILE: a policy instead of the built-in one; --with FILE (repeatable): referenced objects.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mapper/catalog/catalog.h"
#include "mapper/view/references.h"
#include "policy/admission_state.h"
#include "policy/policy.h"

namespace wm::cli {

// Adds "--definitions DIR" (repeatable) to `command`; `dirs` gets the directories.
void add_definitions_option(CLI::App& command, std::vector<std::string>& dirs);
// The embedded catalog merged with `dirs`; prints problems to stderr and returns nothing on any.
std::optional<catalog::Catalog> load_catalog(const std::vector<std::string>& dirs);
// Adds "--with FILE" (repeatable): objects that workloads refer to (a TrainJob's TrainingRuntime), which the webhook's
// cluster side would hold.
void add_with_option(CLI::App& command, std::vector<std::string>& files);
// The objects in `files`, held as the cluster side holds them; prints problems to stderr and returns null on any.
// The objects of `manifests` (a TrainingRuntime beside its TrainJob) are held too, where they can be.
std::shared_ptr<view::ReferenceStore> load_references(const std::vector<std::string>& files,
                                                      const std::vector<std::string>& manifests = {});
// The policy in `file`, or the built-in one when `file` is empty; prints problems to stderr.
std::optional<policy::Policy> load_policy(const std::string& file);
// What the webhook would admit with: the catalog, the policy and the referenced objects (load_catalog, load_policy,
// load_references); prints problems to stderr and returns nothing on any.
std::optional<policy::AdmissionState> load_state(const std::vector<std::string>& dirs, const std::string& policy_file,
                                                 const std::vector<std::string>& with,
                                                 const std::vector<std::string>& manifests);

}  // namespace wm::cli
