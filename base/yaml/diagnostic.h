// A problem found while reading input, placed at file and line and naming the field.
#pragma once

#include <string>
#include <vector>

namespace wm::yaml {

struct Diagnostic {
  std::string file;
  int line = 0;       // 1-based; 0 when unknown
  std::string field;  // e.g. spec.structureDefinition.childComponents[0].specDefinition
  std::string message;

  std::string str() const {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
    if (!field.empty()) out += field + ": ";
    return out + message;
  }
};

using Diagnostics = std::vector<Diagnostic>;

}  // namespace wm::yaml
