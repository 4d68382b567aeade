// The set of definitions the mapper knows, looked up by an object's apiVersion and kind.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/yaml/diagnostic.h"
#include "mapper/catalog/definition.h"

namespace wm::catalog {

class Catalog {
 public:
  // The definitions compiled into the binary (definitions/ at build time).
  static Catalog embedded(yaml::Diagnostics& errors);
  // Every *.yaml / *.yml file in `dir` (not recursive), in name order.
  static Catalog from_directory(const std::string& dir, yaml::Diagnostics& errors);

  // Adds or replaces (same group/version/kind) definitions; returns the kinds it replaced.
  std::vector<std::string> merge(Catalog&& other);
  void add(Definition definition, yaml::Diagnostics& errors);
  // Adds, or replaces the definition of the same group/version/kind.
  void put(std::shared_ptr<const Definition> definition);

  struct Match {
    const Definition* definition = nullptr;  // the one whose versions include the object's
    // No definition reads this version of a kind the catalog knows: the versions that are covered ("v1, v1alpha1").
    // Such an object is not understood; another version's paths are never used for it.
    std::string uncovered_version_of;
  };
  Match find(std::string_view api_version, std::string_view kind) const;
  // Whether objects of this kind belong to a workload the catalog knows: a defined kind, a child component's kind,
  // or one of a definition's additionalChildKinds (any version: owner references may name another one).
  bool part_of_a_workload(std::string_view api_version, std::string_view kind) const;
  // Whether an object of `kind` (in `group`) that an object of `owner_kind` controls is that owner's part, not a
  // workload of its own: the owner is part of a workload, and, when its definition owns only its components, the
  // object's kind is one of them.
  bool part_of_its_owner(std::string_view owner_api_version, std::string_view owner_kind, std::string_view group,
                         std::string_view kind) const;

  // The compiled replica keyPath (podSelector.replicaSelector.keyPath) a definition writes as `text`; null when no
  // definition has it. Only the catalog's own expressions are ever evaluated, whatever text a pod carries.
  Path replica_key(std::string_view text) const;

  const std::vector<std::shared_ptr<const Definition>>& definitions() const { return definitions_; }
  // Compiles, on the calling thread, the jq programs that the definitions fall back to.
  void warm_up() const;
  size_t size() const { return definitions_.size(); }

 private:
  std::vector<std::shared_ptr<const Definition>> definitions_;
};

}  // namespace wm::catalog
