// The live catalog and policy, swapped whole on reload. A reload that fails (a broken policy or
// definition file) keeps the last good state live; the caller logs it and counts it.
// Definitions come from three places, later ones replacing earlier ones of the same group/version/kind: the
// built-in catalog, Karta objects from the cluster (controllers/karta_source), and --definitions directories.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/file_watch.h"
#include "base/yaml/diagnostic.h"
#include "policy/admission_state.h"

namespace wm::policy {

struct StateSources {
  std::string policy_file;                   // empty: the built-in policy
  std::vector<std::string> definition_dirs;  // merged over the embedded catalog
};

class StateStore {
 public:
  explicit StateStore(StateSources sources);
  // Loads everything; the problems found, each at its file, line and field (none: loaded).
  yaml::Diagnostics load();
  struct Reload {
    std::string what;            // "policy" or "definitions"
    yaml::Diagnostics problems;  // none: reloaded
    bool ok() const { return problems.empty(); }
  };
  // Reloads what changed since the last call.
  std::vector<Reload> reload_if_changed();

  // Not ready until the first set of cluster definitions arrives (the first list of Karta objects).
  void expect_cluster_definitions();
  // The Karta objects' definitions now in force (each already checked); replaces the previous set.
  void set_cluster_definitions(std::vector<std::shared_ptr<const catalog::Definition>> definitions);

  // The objects workloads refer to: the cluster side keeps them current, admission reads them.
  view::ReferenceStore& references() { return *references_; }

  AdmissionState current() const;
  bool ready() const;

 private:
  bool load_policy(yaml::Diagnostics& errors);
  bool load_definitions(yaml::Diagnostics& errors);
  void compose_catalog();  // with mutex_ held

  StateSources sources_;
  FileWatch policy_watch_, definitions_watch_;
  mutable std::mutex mutex_;
  AdmissionState state_;
  std::shared_ptr<view::ReferenceStore> references_ = std::make_shared<view::ReferenceStore>();
  catalog::Catalog builtin_, from_directories_;
  std::vector<std::shared_ptr<const catalog::Definition>> from_cluster_;
  bool cluster_expected_ = false, cluster_loaded_ = false;
};

}  // namespace wm::policy
