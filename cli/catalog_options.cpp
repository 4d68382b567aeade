#include "cli/catalog_options.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "mapper/catalog/documents.h"

namespace wm::cli {

void add_definitions_option(CLI::App& command, std::vector<std::string>& dirs) {
  command
      .add_option("--definitions", dirs,
                  "add or override definitions (repeatable); the built-in catalog is always loaded")
      ->type_name("DIR")
      ->expected(1)  // one directory per --definitions, so that a FILE after it stays a FILE
      ->allow_extra_args(false)
      ->take_all();
}

std::optional<catalog::Catalog> load_catalog(const std::vector<std::string>& dirs) {
  yaml::Diagnostics errors;
  catalog::Catalog catalog = catalog::Catalog::embedded(errors);
  for (const auto& dir : dirs) {
    catalog::Catalog extra = catalog::Catalog::from_directory(dir, errors);
    catalog.merge(std::move(extra));
  }
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty()) return std::nullopt;
  return catalog;
}

void add_with_option(CLI::App& command, std::vector<std::string>& files) {
  command
      .add_option("--with", files,
                  "objects the workloads refer to, such as a TrainJob's TrainingRuntime (repeatable); the webhook's "
                  "cluster side watches them")
      ->type_name("FILE")
      ->expected(1)  // one file per --with, so that the workloads' FILEs after it stay theirs
      ->allow_extra_args(false)
      ->take_all();
}

std::shared_ptr<view::ReferenceStore> load_references(const std::vector<std::string>& files,
                                                      const std::vector<std::string>& manifests) {
  auto store = std::make_shared<view::ReferenceStore>();
  yaml::Diagnostics errors;
  for (const auto& file : files)
    for (auto& document : catalog::read_document_file(file, errors))
      if (auto held = store->put(std::move(document.json)); !held) {
        if (held.code() != ErrorCode::NotFound)
          errors.push_back({document.file, document.line, "", held.error()});
        else  // made from generateName, which nothing can refer to: skipped with a note, the rest of the file kept
          std::cerr << yaml::Diagnostic{document.file, document.line, "", "note: skipped " + held.error()}.str()
                    << "\n";
      }
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty()) return nullptr;
  // The manifests' own objects too; what they cannot name (a generateName workload) is theirs to report.
  yaml::Diagnostics ignored;
  for (const auto& file : manifests)
    for (auto& document : catalog::read_document_file(file, ignored)) (void)store->put(std::move(document.json));
  return store;
}

std::optional<policy::Policy> load_policy(const std::string& file) {
  if (file.empty()) return policy::Policy::builtin();
  std::ifstream in(file);
  if (!in) {
    std::cerr << file << ": cannot open the policy file\n";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  yaml::Diagnostics problems;
  auto policy = policy::Policy::load(text.str(), file, problems);
  for (const auto& p : problems) std::cerr << p.str() << "\n";
  return policy;
}

std::optional<policy::AdmissionState> load_state(const std::vector<std::string>& dirs, const std::string& policy_file,
                                                 const std::vector<std::string>& with,
                                                 const std::vector<std::string>& manifests) {
  auto catalog = load_catalog(dirs);
  auto policy = catalog ? load_policy(policy_file) : std::nullopt;
  auto references = policy ? load_references(with, manifests) : nullptr;
  if (!references) return std::nullopt;
  return policy::AdmissionState{std::make_shared<const catalog::Catalog>(std::move(*catalog)),
                                std::make_shared<const policy::Policy>(std::move(*policy)), std::move(references)};
}

}  // namespace wm::cli
