// The live catalog and policy, swapped whole on reload. A reload that fails (a broken policy or
// definition file) keeps the last good state live; the caller logs it and counts it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "webhook/admission.h"
#include "webhook/file_watch.h"

namespace wm::webhook {

struct StateSources {
  std::string policy_file;                   // empty: the built-in policy
  std::vector<std::string> definition_dirs;  // merged over the embedded catalog
};

class StateStore {
 public:
  explicit StateStore(StateSources sources);
  // Loads everything; on failure returns false with the problems in `errors`.
  bool load(std::vector<std::string>& errors);
  struct Reload {
    std::string what;  // "policy" or "definitions"
    bool ok;
    std::vector<std::string> errors;
  };
  // Reloads what changed since the last call.
  std::vector<Reload> reload_if_changed();

  AdmissionState current() const;
  bool ready() const;

 private:
  bool load_policy(std::vector<std::string>& errors);
  bool load_definitions(std::vector<std::string>& errors);

  StateSources sources_;
  FileWatch policy_watch_, definitions_watch_;
  mutable std::mutex mutex_;
  AdmissionState state_;
};

}  // namespace wm::webhook
