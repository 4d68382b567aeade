// Shared helpers for the tests: the corpus, the built-in catalog, parsed objects, child processes.
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"
#include "mapper/catalog/catalog.h"
#include "mapper/catalog/documents.h"
#include "mapper/view/references.h"
#include "mapper/view/workload_view.h"

namespace wm::test {

std::string source_path(const std::string& relative);  // inside the repository
std::string corpus_dir();
// Every corpus manifest, as paths relative to corpus_dir(), sorted.
std::vector<std::string> corpus_files();
// The .yaml files under `dir`, recursively, relative to it, sorted.
std::vector<std::string> yaml_files_under(const std::string& dir);

const catalog::Catalog& builtin_catalog();

// One object parsed from a manifest, kept alive with its DOM.
struct ParsedObject {
  catalog::SourceDocument source;
  std::unique_ptr<simdjson::dom::document> dom;
  simdjson::dom::element root;
  std::unique_ptr<json::ObjectDocument> doc;
  std::string api_version, kind, name;
};
std::vector<ParsedObject> parse_file(const std::string& path);
// Every object of the manifest files that has a name, held as the cluster side holds the objects workloads refer to.
void hold_objects(view::ReferenceStore& store, const std::vector<std::string>& paths);
ParsedObject parse_json(const std::string& json, const std::string& label = "inline");
std::vector<ParsedObject> parse_yaml(const std::string& yaml, const std::string& label = "inline");

// Views of one-object manifests under the built-in catalog, reading referenced objects from `store`; the views point
// into the objects kept.
struct ReferencedViews {
  view::ReferenceStore store;
  std::vector<ParsedObject> kept;
  view::WorkloadView view(const std::string& yaml, const std::string& namespace_name = "");
};

// Runs a shell command; returns its exit status and fills `output` with stdout.
int run(const std::string& command, std::string& output);
bool have_command(const std::string& name);
std::string write_temp(const std::string& name, const std::string& content);
std::string read_file(const std::string& path);  // "" when it cannot be read
// The string at `pointer`, or "<missing>" when there is none.
std::string string_at(simdjson::dom::element root, const std::string& pointer);

}  // namespace wm::test
