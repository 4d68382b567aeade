// Objects that workloads refer to (a TrainJob's TrainingRuntime), held in memory so that a view can read them without
// asking the API server: the cluster side fills the store from its watches, the CLI from --with files. Admission only
// reads it. Resolving a definition's references (Definition::references) gives the document its paths read
// (Definition::resolved_object), or the problem that names what is missing.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"
#include "base/result.h"
#include "mapper/catalog/definition.h"
#include "mapper/view/node_domains.h"

namespace wm::view {

class ReferenceStore {
 public:
  // Holds one object (JSON text, with apiVersion, kind and metadata.name); an error when it lacks them, NotFound for
  // one made from generateName (nothing can refer to it by name).
  Result<void> put(std::string json);
  void remove(std::string_view group, std::string_view kind, std::string_view namespace_name, std::string_view name);
  // Replaces every object of one kind (after a watch lists the kind again); from then on the store holds the kind.
  void replace_kind(std::string_view group, std::string_view kind, std::vector<std::string> objects);
  // Lets go of every object of one kind, and of knowing it: nothing watches it any more.
  void forget_kind(std::string_view group, std::string_view kind);
  // Whether the kind has been listed (replace_kind) since it was last forgotten: only then does a missing object
  // mean that the cluster has none of that name.
  bool holds_kind(std::string_view group, std::string_view kind) const;
  // The object's JSON text; null when the store does not hold it. Cluster-scoped objects have an empty namespace.
  std::shared_ptr<const std::string> find(std::string_view group, std::string_view kind,
                                          std::string_view namespace_name, std::string_view name) const;
  // Every object of one kind that the store holds (in name order within each namespace).
  std::vector<std::shared_ptr<const std::string>> objects_of(std::string_view group, std::string_view kind) const;
  size_t size() const;
  // Kinds the cluster side asked discovery about and found not served (a profile's PodGroup kind whose API or CRD is
  // not there), by group and kind: admission warns that a workload gets no gang. Served again: set_served(true).
  void set_served(std::string_view group, std::string_view kind, bool served);
  bool known_unserved(std::string_view group, std::string_view kind) const;
  // The cluster's topology domains (NodeDomains), as the cluster side last summed its Nodes; null until it has listed
  // them, or when no topology asks.
  void set_node_domains(std::shared_ptr<const NodeDomains> domains);
  std::shared_ptr<const NodeDomains> node_domains() const;

 private:
  static std::string kind_key(std::string_view group, std::string_view kind);  // "group/kind/": its objects' prefix
  static std::string key(std::string_view group, std::string_view kind, std::string_view namespace_name,
                         std::string_view name);
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::shared_ptr<const std::string>, std::less<>> objects_;
  std::set<std::string, std::less<>> listed_kinds_;    // kind_key()
  std::set<std::string, std::less<>> unserved_kinds_;  // kind_key()
  std::shared_ptr<const NodeDomains> node_domains_;
};

// The document a definition with references reads: {object, references: {name: object}} evaluated by its
// resolved-object expression. Owns the storage its elements live in.
struct ResolvedDocument {
  simdjson::dom::parser parser;
  std::unique_ptr<json::ObjectDocument> input, object;
  // Optional references named but not found (ReferenceDefinition::optional), each "reference NAME: KIND NS/NAME
  // (GROUP) is not known ...": null in the input, the workload's pods from them not counted.
  std::vector<std::string> missing;
};

// Looks each reference up (in `namespace_name` for namespaced kinds) and evaluates the resolved-object expression.
// An error when a required reference is missing or the expressions fail; null when every reference is optional and
// the object names none (the definition's paths then read the object itself).
Result<std::shared_ptr<ResolvedDocument>> resolve_references(const catalog::Definition& definition,
                                                             json::ObjectDocument& doc, const ReferenceStore* store,
                                                             std::string_view namespace_name);

}  // namespace wm::view
