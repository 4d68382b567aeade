// --definitions DIR (repeatable): directories whose definitions extend or override the embedded catalog;
// --policy FILE: a policy instead of the built-in one.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mapper/catalog/catalog.h"
#include "webhook/policy.h"

namespace wm::cli {

// Adds "--definitions DIR" (repeatable) to `command`; `dirs` gets the directories.
void add_definitions_option(CLI::App& command, std::vector<std::string>& dirs);
// The embedded catalog merged with `dirs`; prints problems to stderr and returns nothing on any.
std::optional<Catalog> load_catalog(const std::vector<std::string>& dirs);
// The policy in `file`, or the built-in one when `file` is empty; prints problems to stderr.
std::optional<webhook::Policy> load_policy(const std::string& file);

}  // namespace wm::cli
