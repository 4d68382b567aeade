// Reads Karta's schema (run.ai/v1alpha1 Karta, upstream Workload Map's definition format): the structureDefinition's
// components (kind, ownerRef, spec, scale, instance ids, pod selectors, status and suspend definitions) in
// karta_reader.cpp, and optimizationInstructions.gangScheduling in karta_gangs.cpp. What workload-map adds in
// annotations is annotation_reader.h's.
// Internal to mapper/catalog.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "mapper/catalog/definition.h"
#include "mapper/catalog/definition_reader.h"

namespace wm::catalog {

// apiVersion, kind, metadata.name and the structureDefinition; nothing when the document cannot be read that far.
std::optional<Definition> read_karta_structure(DefinitionReader& r, const YAML::Node& doc);

// Component names are unique, and every owner chain ends at the root.
void check_karta_structure(DefinitionReader& r, const Definition& def);

// spec.optimizationInstructions.gangScheduling, whose pod groups name the components (karta_gangs.cpp).
void read_karta_gangs(DefinitionReader& r, const YAML::Node& doc, Definition& def);

// {group, version, kind} at `node`; nothing when version or kind is missing (reported).
std::optional<GroupVersionKind> read_gvk(yaml::YamlReader& r, const YAML::Node& node, const std::string& field,
                                         bool group_required);

}  // namespace wm::catalog
