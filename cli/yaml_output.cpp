#include "cli/yaml_output.h"

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include "base/json/json_writer.h"

namespace wm::cli {

namespace {

void emit(YAML::Emitter& out, simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out << YAML::BeginMap;
      simdjson::dom::object object = e.get_object().value_unsafe();
      for (auto [k, v] : object) {
        out << YAML::Key << std::string(k) << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out << YAML::BeginSeq;
      simdjson::dom::array array = e.get_array().value_unsafe();
      for (auto v : array) emit(out, v);
      out << YAML::EndSeq;
      break;
    }
    case simdjson::dom::element_type::STRING: {
      std::string s(e.get_string().value_unsafe());
      // Quote strings that would read back as another type ("true", "1", "").
      bool plain_safe = !s.empty() && s.find_first_not_of("0123456789.-+eE") != std::string::npos && s != "true" &&
                        s != "false" && s != "null" && s != "yes" && s != "no" && s != "on" && s != "off" && s != "~";
      out << (plain_safe ? YAML::Auto : YAML::DoubleQuoted) << s;
      break;
    }
    case simdjson::dom::element_type::NULL_VALUE:
      out << YAML::Null;
      break;
    case simdjson::dom::element_type::BOOL:
      out << (e.get_bool().value_unsafe() ? "true" : "false");
      break;
    default:
      out << json::element_json(e);
      break;
  }
}

}  // namespace

std::string json_to_yaml(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) return {};
  YAML::Emitter out;
  emit(out, root);
  return std::string(out.c_str()) + "\n";
}

}  // namespace wm::cli
