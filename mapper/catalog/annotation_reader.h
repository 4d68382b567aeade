// Reads what workload-map's own annotations (workload-map.io/...) add to a Karta definition: what Karta's schema has
// no field for, as text in metadata.annotations (a Karta is validated against the schema). Internal to mapper/catalog.
#pragma once

#include <yaml-cpp/yaml.h>

#include "mapper/catalog/definition.h"
#include "mapper/catalog/definition_reader.h"

namespace wm::catalog {

// metadata.annotations (any node; only a mapping holds annotations) into `def`, whose components are already read.
void read_annotations(DefinitionReader& r, const YAML::Node& annotations, Definition& def);

}  // namespace wm::catalog
