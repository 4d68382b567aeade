// The definitions' reader: YamlReader's fields, and jq expressions queued for compiling with the rest of the load
// (DefinitionLoader::finish). What reads Karta's schema (karta_reader.h) and workload-map's annotations
// (annotation_reader.h) both read through it. Internal to mapper/catalog.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "base/yaml/yaml_reader.h"
#include "mapper/catalog/definition.h"
#include "mapper/catalog/definition_loader.h"

namespace wm::catalog {

class DefinitionReader : public yaml::YamlReader {
 public:
  DefinitionReader(std::string file, yaml::Diagnostics& errors, std::shared_ptr<expr::JqLibrary> library,
                   std::vector<DefinitionLoader::PendingCheck>& checks, size_t document)
      : yaml::YamlReader(std::move(file), errors), library_(std::move(library)), checks_(checks), document_(document) {}

  // The jq expression at parent[key]; null when absent (reported when required), empty or refused (reported).
  Path path(const YAML::Node& parent, const char* key, const std::string& field, bool required = false);

  // `source` as a jq expression, reported at line_at(at, fallback_line) if refused now or if it does not compile
  // later, with every other expression of the load.
  Path expression(const std::string& source, const YAML::Node& at, int fallback_line, const std::string& field);

 private:
  std::shared_ptr<expr::JqLibrary> library_;
  std::vector<DefinitionLoader::PendingCheck>& checks_;
  size_t document_;
};

}  // namespace wm::catalog
