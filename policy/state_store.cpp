#include "policy/state_store.h"

#include <fstream>
#include <sstream>

namespace wm::policy {

StateStore::StateStore(StateSources sources)
    : sources_(sources),
      policy_watch_(sources.policy_file.empty() ? std::vector<std::string>{} : std::vector{sources.policy_file}),
      definitions_watch_(sources.definition_dirs) {
  state_.references = references_;
}

yaml::Diagnostics StateStore::load() {
  yaml::Diagnostics problems;
  load_definitions(problems);
  load_policy(problems);
  return problems;
}

bool StateStore::load_policy(yaml::Diagnostics& errors) {
  std::shared_ptr<const Policy> policy;
  if (sources_.policy_file.empty()) {
    policy = std::make_shared<const Policy>(Policy::builtin());
  } else {
    std::ifstream in(sources_.policy_file);
    if (!in) {
      errors.push_back({sources_.policy_file, 0, "", "cannot open the policy file"});
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto loaded = Policy::load(text.str(), sources_.policy_file, errors);
    if (!loaded) return false;
    policy = std::make_shared<const Policy>(std::move(*loaded));
  }
  std::lock_guard lock(mutex_);
  state_.policy = std::move(policy);
  return true;
}

bool StateStore::load_definitions(yaml::Diagnostics& errors) {
  yaml::Diagnostics problems;
  bool first;
  {
    std::lock_guard lock(mutex_);
    first = !state_.catalog;
  }
  catalog::Catalog builtin = first ? catalog::Catalog::embedded(problems) : catalog::Catalog();
  catalog::Catalog directories;
  for (const auto& dir : sources_.definition_dirs) directories.merge(catalog::Catalog::from_directory(dir, problems));
  if (!problems.empty()) {
    errors.insert(errors.end(), problems.begin(), problems.end());
    return false;
  }
  std::lock_guard lock(mutex_);
  if (first) builtin_ = std::move(builtin);
  from_directories_ = std::move(directories);
  compose_catalog();
  return true;
}

void StateStore::compose_catalog() {
  auto catalog = std::make_shared<catalog::Catalog>(builtin_);
  for (const auto& d : from_cluster_) catalog->put(d);
  for (const auto& d : from_directories_.definitions()) catalog->put(d);
  state_.catalog = std::move(catalog);
}

void StateStore::expect_cluster_definitions() {
  std::lock_guard lock(mutex_);
  cluster_expected_ = true;
}

void StateStore::set_cluster_definitions(std::vector<std::shared_ptr<const catalog::Definition>> definitions) {
  std::lock_guard lock(mutex_);
  from_cluster_ = std::move(definitions);
  cluster_loaded_ = true;
  if (state_.catalog) compose_catalog();
}

std::vector<StateStore::Reload> StateStore::reload_if_changed() {
  std::vector<Reload> out;
  if (policy_watch_.changed()) {
    Reload r{"policy", {}};
    load_policy(r.problems);
    out.push_back(std::move(r));
  }
  if (definitions_watch_.changed()) {
    Reload r{"definitions", {}};
    load_definitions(r.problems);
    out.push_back(std::move(r));
  }
  return out;
}

AdmissionState StateStore::current() const {
  std::lock_guard lock(mutex_);
  return state_;
}

bool StateStore::ready() const {
  std::lock_guard lock(mutex_);
  return state_.catalog && state_.policy && (!cluster_expected_ || cluster_loaded_);
}

}  // namespace wm::policy
