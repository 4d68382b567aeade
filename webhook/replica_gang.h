// A gang repeated per replica (a LeaderWorkerSet's groups, a PodCliqueSet's replicas) shares its pod templates with
// its copies, so the workload's admission can write only one name on them ("serve-group"). It writes two annotations
// beside it, and each pod's own admission finishes the name with the pod's replica key ("serve-group-1"), the name of
// that copy's PodGroup. Without this, a scheduler that gangs by name (coscheduling, YuniKorn) would release a gang on
// any pods of any copies.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapper/catalog/catalog.h"
#include "policy/keys.h"

namespace wm::webhook {

struct ReplicaGangNames {
  std::string patch;  // JSON patch; empty when nothing changes (already named, or no key to name it by)
  std::vector<std::string> warnings;
  std::string gang;    // the name every copy's pods carry
  std::string suffix;  // "-<key>", appended to it; empty while the pod's replica key is not known
};

// For an object carrying kReplicaGangAnnotation: every label and annotation whose value is that name gets "-<key>"
// appended, the key read from the object by the catalog's expression. nullopt for an object without the annotation.
// Running it again changes nothing: the values no longer equal the name.
std::optional<ReplicaGangNames> name_replica_gang(simdjson::dom::element object, const catalog::Catalog& catalog);

}  // namespace wm::webhook
