// The loader: files split into YAML documents, each read as a definition (Karta's schema, karta_reader.h, then
// workload-map's annotations, annotation_reader.h), and every jq expression of the load compiled at once.
#include "mapper/catalog/definition_loader.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "base/yaml/yaml_guard.h"
#include "mapper/catalog/annotation_reader.h"
#include "mapper/catalog/definition_reader.h"
#include "mapper/catalog/karta_reader.h"

namespace wm::catalog {

namespace {

// jq's messages span lines and end with a count; keep the first sentence on one line.
std::string one_line(std::string message) {
  if (auto cut = message.find(" at <top-level>"); cut != std::string::npos) message.resize(cut);
  for (char& c : message)
    if (c == '\n') c = ' ';
  if (message.rfind("jq: error: ", 0) == 0) message.erase(0, 11);
  return message;
}

// One document: Karta's structure, then what workload-map's annotations add to its components, then the structure's
// checks and the gangs, which name components.
std::optional<Definition> read_definition(DefinitionReader& r, const YAML::Node& doc) {
  std::optional<Definition> def = read_karta_structure(r, doc);
  if (!def) return std::nullopt;
  YAML::Node metadata = doc["metadata"];
  if (metadata.IsMap()) read_annotations(r, metadata["annotations"], *def);
  check_karta_structure(r, *def);
  read_karta_gangs(r, doc, *def);
  return def;
}

}  // namespace

DefinitionLoader::DefinitionLoader() : library_(std::make_shared<expr::JqLibrary>()) {}
DefinitionLoader::~DefinitionLoader() = default;

void DefinitionLoader::load(const std::string& text, const std::string& file) {
  if (auto deep = yaml::yaml_nesting_too_deep(text)) {
    errors_.push_back({file, 0, "", "refused: " + *deep});
    return;
  }
  std::vector<YAML::Node> docs;
  try {
    docs = yaml::load_all_documents(text);
  } catch (const YAML::Exception& e) {
    errors_.push_back({file, yaml::error_line(e), "", "invalid YAML: " + e.msg});
    return;
  }
  for (const auto& doc : docs) {
    if (doc.IsNull()) continue;
    size_t document = documents_++;
    DefinitionReader reader(file, errors_, library_, checks_, document);
    size_t before = errors_.size();
    std::optional<Definition> def;
    try {
      def = read_definition(reader, doc);
    } catch (const YAML::Exception& e) {
      // yaml-cpp throws when a node is used as what it is not (a list where a mapping belongs).
      errors_.push_back(
          {file, yaml::error_line(e, DefinitionReader::line_of(doc)), "", "malformed definition: " + e.msg});
    }
    if (def && errors_.size() == before) definitions_.emplace_back(document, std::move(*def));
  }
}

DefinitionLoad DefinitionLoader::finish() {
  DefinitionLoad out;
  out.errors = std::move(errors_);
  std::set<size_t> broken;
  for (const auto& [index, message] : library_->validate())
    for (const auto& check : checks_)
      if (check.expression == index) {
        yaml::Diagnostic d = check.where;
        d.message = "jq expression does not compile: " + one_line(message);
        out.errors.push_back(std::move(d));
        broken.insert(check.document);
      }
  for (auto& [document, def] : definitions_)
    if (!broken.count(document)) out.definitions.push_back(std::move(def));
  definitions_.clear();
  return out;
}

DefinitionLoad load_definitions(const std::string& text, const std::string& file) {
  DefinitionLoader loader;
  loader.load(text, file);
  return loader.finish();
}

}  // namespace wm::catalog
