#include "mapper/catalog/definition_reader.h"

#include "mapper/expr/jq_guard.h"

namespace wm::catalog {

Path DefinitionReader::path(const YAML::Node& parent, const char* key, const std::string& field, bool required) {
  auto source = string(parent, key, field, required);
  if (!source) return nullptr;
  std::string name = field + "." + key;
  if (source->empty()) {
    error(parent[key], line_of(parent), name, "is an empty jq expression");
    return nullptr;
  }
  return expression(*source, parent[key], line_of(parent), name);
}

Path DefinitionReader::expression(const std::string& source, const YAML::Node& at, int fallback_line,
                                  const std::string& field) {
  if (source.find('\0') != std::string::npos) {
    // libjq reads a C string: it would compile only what comes before the NUL, the native engine all of it.
    error(at, fallback_line, field, "jq expression contains a NUL character");
    return nullptr;
  }
  if (auto construct = expr::unbounded_jq_construct(source)) {
    error(at, fallback_line, field,
          "jq expression uses " + *construct +
              ", which may not terminate or reaches outside the object; definitions run on every admission");
    return nullptr;
  }
  auto path = std::make_shared<const expr::PathExpression>(source, library_);
  if (auto index = path->library_index())
    checks_.push_back({*index, {file(), line_at(at, fallback_line), field, ""}, document_});
  return path;
}

}  // namespace wm::catalog
