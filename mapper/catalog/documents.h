// Reads Kubernetes manifests: a JSON object, or YAML with one or more documents, each turned into
// JSON text with Kubernetes' scalar typing (sigs.k8s.io/yaml: YAML 1.1 booleans, quoted means string).
#pragma once

#include <string>
#include <vector>

#include "base/yaml/diagnostic.h"

namespace wm::catalog {

struct SourceDocument {
  std::string json;
  std::string file;
  int line = 0;  // where the document starts
};

std::vector<SourceDocument> read_documents(const std::string& text, const std::string& file, yaml::Diagnostics& errors);
std::vector<SourceDocument> read_document_file(const std::string& path, yaml::Diagnostics& errors);

}  // namespace wm::catalog
