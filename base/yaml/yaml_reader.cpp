#include "base/yaml/yaml_reader.h"

#include <algorithm>
#include <span>

namespace wm::yaml {

namespace {

std::string member(const std::string& field, const std::string& key) { return field.empty() ? key : field + "." + key; }

bool listed(const std::string& key, std::span<const char* const> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
}

// "(a, b, c)"
std::string listing(std::span<const char* const> allowed) {
  std::string out;
  for (const char* a : allowed) out += (out.empty() ? "(" : ", ") + std::string(a);
  return out + ")";
}

}  // namespace

void YamlReader::error(const YAML::Node& at, int fallback_line, const std::string& field, const std::string& message) {
  errors_.push_back({file_, line_at(at, fallback_line), field, message});
}

bool YamlReader::map(const YAML::Node& node, const std::string& field, const std::vector<const char*>& allowed) {
  if (!node.IsMap()) {
    error(node, field, "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    const std::string& key = entry.first.Scalar();
    if (!listed(key, allowed)) error(entry.first, line_of(node), member(field, key), "unknown field");
  }
  return true;
}

bool YamlReader::map(const YAML::Node& node, const YAML::Node& at, const std::string& field,
                     std::initializer_list<const char*> allowed) {
  const std::span<const char* const> keys(allowed.begin(), allowed.size());
  if (!node.IsMap()) {
    error(at, field, "must be a mapping " + listing(keys));
    return false;
  }
  for (const auto& entry : node) {
    const std::string& key = entry.first.Scalar();
    if (!listed(key, keys)) error(at, member(field, key), "unknown field " + listing(keys));
  }
  return true;
}

std::optional<std::string> YamlReader::string(const YAML::Node& parent, const char* key, const std::string& field,
                                              bool required) {
  YAML::Node node = parent[key];
  std::string name = member(field, key);
  if (!node.IsDefined() || node.IsNull()) {
    if (required) error(parent, line_of(parent), name, "is required");
    return std::nullopt;
  }
  if (!node.IsScalar()) {
    error(node, line_of(parent), name, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::vector<std::string> YamlReader::strings(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (node.IsScalar()) return {node.Scalar()};
  if (!node.IsSequence()) {
    error(node, field, "must be a list of strings");
    return out;
  }
  for (const auto& item : node) out.push_back(item.Scalar());
  return out;
}

bool YamlReader::boolean(const YAML::Node& node, const std::string& field, bool fallback) {
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const std::string& s = node.Scalar();
  if (s == "true") return true;
  if (s == "false") return false;
  error(node, field, "must be true or false");
  return fallback;
}

void YamlReader::sequence(const YAML::Node& parent, const char* key, const std::string& field,
                          const std::function<void(const YAML::Node&, const std::string&)>& each) {
  YAML::Node node = parent[key];
  if (!node.IsDefined() || node.IsNull()) return;
  std::string name = member(field, key);
  if (!node.IsSequence()) {
    error(node, line_of(parent), name, "must be a list");
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) each(node[i], name + "[" + std::to_string(i) + "]");
}

}  // namespace wm::yaml
