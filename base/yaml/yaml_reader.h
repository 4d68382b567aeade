// Reads a YAML document field by field for the definitions and the policy alike: what is wrong is reported by file,
// line and field into Diagnostics (and reading goes on, so one load names every mistake), never thrown.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "base/yaml/diagnostic.h"

namespace wm::yaml {

class YamlReader {
 public:
  YamlReader(std::string file, Diagnostics& errors) : file_(std::move(file)), errors_(errors) {}

  // The node's 1-based line, 0 when yaml-cpp does not know it (an undefined node).
  static int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }
  // `at`'s line, or `fallback_line` when `at` is not in the text (a missing key).
  static int line_at(const YAML::Node& at, int fallback_line) {
    return at.IsDefined() && at.Mark().line >= 0 ? at.Mark().line + 1 : fallback_line;
  }

  // Reported at line_at(at, fallback_line).
  void error(const YAML::Node& at, int fallback_line, const std::string& field, const std::string& message);
  void error(const YAML::Node& at, const std::string& field, const std::string& message) {
    error(at, 0, field, message);
  }

  // A mapping whose keys are all in `allowed`; unknown keys are reported (they are usually typos). False when `node`
  // is not a mapping.
  bool map(const YAML::Node& node, const std::string& field, std::initializer_list<const char*> allowed) {
    return map(node, field, std::vector<const char*>(allowed));
  }
  bool map(const YAML::Node& node, const std::string& field, const std::vector<const char*>& allowed);
  // The same for a mapping parsed from YAML text inside the document (an annotation's value), whose own lines are not
  // the file's: what is wrong is reported at `at`'s line, and the message names the allowed keys.
  bool map(const YAML::Node& node, const YAML::Node& at, const std::string& field,
           std::initializer_list<const char*> allowed);

  // The scalar at parent[key]; nothing when it is absent (reported when required) or not a scalar (reported).
  std::optional<std::string> string(const YAML::Node& parent, const char* key, const std::string& field, bool required);

  // A list of strings; one scalar counts as a list of one, and an absent node as none.
  std::vector<std::string> strings(const YAML::Node& node, const std::string& field);

  // true or false; `fallback` when absent or wrong (reported).
  bool boolean(const YAML::Node& node, const std::string& field, bool fallback);

  // Calls `each` for every item of the sequence at parent[key], if present.
  void sequence(const YAML::Node& parent, const char* key, const std::string& field,
                const std::function<void(const YAML::Node&, const std::string&)>& each);

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  Diagnostics& errors_;
};

}  // namespace wm::yaml
