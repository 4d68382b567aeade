#include "mapper/catalog/documents.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/json/json_writer.h"
#include "base/yaml/yaml_guard.h"

namespace wm::catalog {

namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

// The JSON text for a plain (unquoted, untagged) scalar.
std::string plain_scalar(const std::string& s) {
  if (one_of(s, {"", "~", "null", "Null", "NULL"})) return "null";
  if (one_of(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) return "true";
  if (one_of(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) return "false";
  // Every number starts with a sign, a digit or a point; the regexes below allocate, and an aliased scalar can be
  // read a million times.
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' || s[0] == '.'))
    return json::json_string(s);
  static const std::regex decimal("[-+]?(0|[1-9][0-9_]*)");
  static const std::regex octal("[-+]?0[0-7_]+|0o[0-7]+");
  static const std::regex hex("0x[0-9a-fA-F_]+");
  static const std::regex real("[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?");
  std::string digits;
  for (char c : s)
    if (c != '_') digits.push_back(c);
  if (std::regex_match(s, decimal)) return digits[0] == '+' ? digits.substr(1) : digits;
  if (std::regex_match(s, hex)) return std::to_string(std::strtoll(digits.c_str() + 2, nullptr, 16));
  if (std::regex_match(s, octal)) {
    bool o = digits.rfind("0o", 0) == 0;
    return std::to_string(std::strtoll(digits.c_str() + (o ? 2 : 0), nullptr, 8));
  }
  if (std::regex_match(s, real)) {
    double d = std::strtod(digits.c_str(), nullptr);
    if (std::isfinite(d)) return json::json_number(d);
  }
  return json::json_string(s);
}

// A document's JSON may be at most this long: the API server takes 3 MiB objects, and YAML aliases can otherwise
// expand a few hundred bytes into gigabytes ("billion laughs"; go-yaml refuses "excessive aliasing" too). Reaching
// the limit costs about 0.05 s per MiB, so it is kept near what a cluster could hold (at 16 MiB, fuzz_definitions timed
// out under ASan).
constexpr size_t kMaxDocumentJson = 4u << 20;

void to_json(const YAML::Node& node, std::string& out) {
  if (out.size() > kMaxDocumentJson)
    throw YAML::ParserException(node.Mark(), "the document expands to more than 4 MiB of JSON (excessive aliasing?)");
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out += "null";
      return;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "?") {
        out += plain_scalar(node.Scalar());
      } else if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
                 tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null") {
        out += plain_scalar(node.Scalar());
      } else {
        json::append_json_string(out, node.Scalar());  // quoted, block scalars, !!str
      }
      return;
    }
    case YAML::NodeType::Sequence: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : node) {
        if (!first) out.push_back(',');
        first = false;
        to_json(item, out);
      }
      out.push_back(']');
      return;
    }
    case YAML::NodeType::Map: {
      out.push_back('{');
      bool first = true;
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) throw YAML::ParserException(entry.first.Mark(), "map keys must be scalars");
        if (!first) out.push_back(',');
        first = false;
        json::append_json_string(out, entry.first.Scalar());
        out.push_back(':');
        to_json(entry.second, out);
      }
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

std::vector<SourceDocument> read_documents(const std::string& text, const std::string& file,
                                           yaml::Diagnostics& errors) {
  std::vector<SourceDocument> out;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    out.push_back({text, file, 1});  // JSON: simdjson parses it as it is
    return out;
  }
  if (auto deep = yaml::yaml_nesting_too_deep(text)) {
    errors.push_back({file, 0, "", "refused: " + *deep});
    return out;
  }
  try {
    for (const auto& doc : yaml::load_all_documents(text)) {
      if (doc.IsNull()) continue;
      SourceDocument d{"", file, doc.Mark().line + 1};
      to_json(doc, d.json);
      out.push_back(std::move(d));
    }
  } catch (const YAML::Exception& e) {
    errors.push_back({file, yaml::error_line(e), "", "invalid YAML: " + e.msg});
  }
  return out;
}

std::vector<SourceDocument> read_document_file(const std::string& path, yaml::Diagnostics& errors) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back({path, 0, "", "cannot open the file"});
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  return read_documents(text.str(), path, errors);
}

}  // namespace wm::catalog
