#include "tests/support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wm::test {

std::string source_path(const std::string& relative) { return std::string(WM_SOURCE_DIR) + "/" + relative; }

std::string corpus_dir() { return WM_CORPUS_DIR; }

std::vector<std::string> yaml_files_under(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      files.push_back(std::filesystem::relative(entry.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> corpus_files() { return yaml_files_under(corpus_dir()); }

const catalog::Catalog& builtin_catalog() {
  static const catalog::Catalog catalog = [] {
    yaml::Diagnostics errors;
    catalog::Catalog c = catalog::Catalog::embedded(errors);
    for (const auto& e : errors) FAIL(e.str());
    return c;
  }();
  return catalog;
}

namespace {

ParsedObject parse_source(catalog::SourceDocument source) {
  static simdjson::dom::parser parser;
  ParsedObject p;
  p.source = std::move(source);
  p.dom = std::make_unique<simdjson::dom::document>();
  auto error = parser.parse_into_document(*p.dom, p.source.json.data(), p.source.json.size()).get(p.root);
  REQUIRE(error == simdjson::SUCCESS);
  std::string_view s;
  if (!p.root["apiVersion"].get_string().get(s)) p.api_version = s;
  if (!p.root["kind"].get_string().get(s)) p.kind = s;
  if (!p.root.at_pointer("/metadata/name").get_string().get(s)) p.name = s;
  p.doc = std::make_unique<json::ObjectDocument>(p.root);
  return p;
}

std::vector<ParsedObject> parse_all(std::vector<catalog::SourceDocument> sources, const yaml::Diagnostics& errors) {
  for (const auto& e : errors) FAIL(e.str());
  std::vector<ParsedObject> out;
  for (auto& s : sources) out.push_back(parse_source(std::move(s)));
  return out;
}

}  // namespace

std::vector<ParsedObject> parse_file(const std::string& path) {
  yaml::Diagnostics errors;
  auto sources = catalog::read_document_file(path, errors);
  return parse_all(std::move(sources), errors);
}

void hold_objects(view::ReferenceStore& store, const std::vector<std::string>& paths) {
  yaml::Diagnostics errors;
  for (const auto& path : paths)
    for (auto& document : catalog::read_document_file(path, errors))
      (void)store.put(std::move(document.json));  // unheld: a workload with only generateName, which nothing names
}

ParsedObject parse_json(const std::string& json, const std::string& label) { return parse_source({json, label, 1}); }

std::vector<ParsedObject> parse_yaml(const std::string& yaml, const std::string& label) {
  yaml::Diagnostics errors;
  auto sources = catalog::read_documents(yaml, label, errors);
  return parse_all(std::move(sources), errors);
}

int run(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool have_command(const std::string& name) {
  std::string out;
  return run("command -v " + name + " >/dev/null 2>&1", out) == 0;
}

std::string write_temp(const std::string& name, const std::string& content) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/wm-test-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string string_at(simdjson::dom::element root, const std::string& pointer) {
  std::string_view s;
  if (root.at_pointer(pointer).get_string().get(s) != simdjson::SUCCESS) return "<missing>";
  return std::string(s);
}

view::WorkloadView ReferencedViews::view(const std::string& yaml, const std::string& namespace_name) {
  auto objects = parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  auto match = builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  kept.push_back(std::move(objects[0]));
  return view::build_view(*match.definition, *kept.back().doc,
                          {.catalog = &builtin_catalog(), .references = &store, .namespace_name = namespace_name});
}

}  // namespace wm::test
