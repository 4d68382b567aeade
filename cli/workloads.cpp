#include "cli/workloads.h"

#include <iostream>

namespace wm::cli {

int for_each_workload(const std::vector<std::string>& files, const catalog::Catalog& catalog,
                      const std::function<void(Workload&)>& each) {
  int failures = 0;
  simdjson::dom::parser parser;
  for (const auto& file : files) {
    yaml::Diagnostics errors;
    auto documents = catalog::read_document_file(file, errors);
    for (const auto& e : errors) std::cerr << e.str() << "\n";
    failures += static_cast<int>(errors.size());
    for (const auto& source : documents) {
      simdjson::dom::element root;
      if (auto error = parser.parse(source.json).get(root)) {
        std::cerr << source.file << ":" << source.line << ": invalid JSON: " << simdjson::error_message(error) << "\n";
        ++failures;
        continue;
      }
      std::string_view api, kind, name;
      if (root["apiVersion"].get_string().get(api)) api = {};
      if (root["kind"].get_string().get(kind)) kind = {};
      if (root.at_pointer("/metadata/name").get_string().get(name)) name = {};
      json::ObjectDocument doc(root);
      Workload w{source, doc, std::string(api), std::string(kind), std::string(name), catalog.find(api, kind)};
      each(w);
    }
  }
  return failures;
}

}  // namespace wm::cli
