#include "policy/object_template.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>

#include "base/json/json_writer.h"

namespace wm::policy {

struct ObjectTemplate::Node {
  enum class Kind {
    Map,
    Sequence,
    Text,
    Raw,
    Count,
    GangResources,
    TaskMinMembers,
    PodGroupTemplates
  } kind = Kind::Text;
  std::vector<std::string> keys;      // Map: the key of each child
  std::vector<Node> children;         // Map, Sequence
  std::optional<ValueTemplate> text;  // Text, Count
  std::string raw;                    // Raw: a YAML number or boolean, written as is
};

namespace {

using Node = ObjectTemplate::Node;

std::string whole_variable(const std::string& text) {
  if (text.size() < 5 || text.rfind("{{", 0) != 0 || text.compare(text.size() - 2, 2, "}}") != 0) return {};
  std::string inner = text.substr(2, text.size() - 4);
  size_t a = inner.find_first_not_of(' '), b = inner.find_last_not_of(' ');
  if (a == std::string::npos || inner.find("{{") != std::string::npos) return {};
  return inner.substr(a, b - a + 1);
}

bool plain_non_string(const YAML::Node& n) {
  if (n.Tag() == "!") return false;  // quoted: a string
  const std::string& s = n.Scalar();
  if (s == "true" || s == "false") return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

Result<Node> parse_node(const YAML::Node& n, const std::string& field) {
  Node out;
  if (n.IsMap()) {
    out.kind = Node::Kind::Map;
    for (const auto& e : n) {
      auto child = parse_node(e.second, field + "." + e.first.Scalar());
      if (!child) return child;
      out.keys.push_back(e.first.Scalar());
      out.children.push_back(std::move(*child));
    }
  } else if (n.IsSequence()) {
    out.kind = Node::Kind::Sequence;
    for (size_t i = 0; i < n.size(); ++i) {
      auto child = parse_node(n[i], field + "[" + std::to_string(i) + "]");
      if (!child) return child;
      out.children.push_back(std::move(*child));
    }
  } else if (n.IsScalar()) {
    const std::string whole = whole_variable(n.Scalar());
    if (whole == "gangResources" || whole == "taskMinMembers" || whole == "podGroupTemplates") {
      out.kind = whole == "gangResources"    ? Node::Kind::GangResources
                 : whole == "taskMinMembers" ? Node::Kind::TaskMinMembers
                                             : Node::Kind::PodGroupTemplates;
      return out;
    }
    if (plain_non_string(n)) {
      out.kind = Node::Kind::Raw;
      out.raw = n.Scalar();
      return out;
    }
    auto text = ValueTemplate::parse(n.Scalar());
    if (!text) return Error{field + ": " + text.error()};
    out.text = std::move(*text);
    out.kind = whole == "gangSize" || whole == "pods" || whole == "gpus" ? Node::Kind::Count : Node::Kind::Text;
  } else {
    return Error{field + ": must be an object, a list or a value"};
  }
  return out;
}

// Appends the node's JSON; false when it renders to nothing (an empty text or object, a map whose every key is left
// out: a PodGroup's workloadRef when there is no Workload), so its key is left out.
bool render(const Node& n, const TemplateValues& v, const ObjectValues& objects, std::string& out) {
  switch (n.kind) {
    case Node::Kind::Map: {
      out.push_back('{');
      bool first = true;
      for (size_t i = 0; i < n.children.size(); ++i) {
        const size_t mark = out.size();
        if (!first) out.push_back(',');
        json::append_json_string(out, n.keys[i]);
        out.push_back(':');
        if (render(n.children[i], v, objects, out))
          first = false;
        else
          out.resize(mark);
      }
      out.push_back('}');
      return !first || n.children.empty();  // a literal {} stays
    }
    case Node::Kind::Sequence: {
      out.push_back('[');
      bool first = true;
      for (const auto& child : n.children) {
        const size_t mark = out.size();
        if (!first) out.push_back(',');
        if (render(child, v, objects, out))
          first = false;
        else
          out.resize(mark);
      }
      out.push_back(']');
      return !first || n.children.empty();  // a literal [] stays; one all of whose items are left out goes
    }
    case Node::Kind::Raw:
      out += n.raw;
      return true;
    case Node::Kind::Count:
      n.text->render_into(out, v);
      return true;
    case Node::Kind::GangResources:
    case Node::Kind::TaskMinMembers:
    case Node::Kind::PodGroupTemplates: {
      std::string_view json = n.kind == Node::Kind::GangResources    ? objects.gang_resources
                              : n.kind == Node::Kind::TaskMinMembers ? objects.task_min_members
                                                                     : objects.pod_group_templates;
      if (json.empty() || json == "{}" || json == "[]") return false;
      out += json;
      return true;
    }
    case Node::Kind::Text: {
      std::string text = n.text->render(v);
      if (text.empty()) return false;
      json::append_json_string(out, text);
      return true;
    }
  }
  return false;
}

}  // namespace

Result<ObjectTemplate> ObjectTemplate::parse(const YAML::Node& node, const std::string& field) {
  if (!node.IsMap()) return Error{field + ": must be an object"};
  auto root = parse_node(node, field);
  if (!root) return Error{root.error()};
  ObjectTemplate t;
  t.root_ = std::make_shared<const Node>(std::move(*root));
  const YAML::Node api_version = node["apiVersion"], kind = node["kind"];
  if (api_version.IsDefined() && api_version.IsScalar() && kind.IsDefined() && kind.IsScalar() &&
      api_version.Scalar().find("{{") == std::string::npos && kind.Scalar().find("{{") == std::string::npos) {
    const std::string& text = api_version.Scalar();
    const auto slash = text.find('/');
    t.object_kind_ =
        catalog::GroupVersionKind{slash == std::string::npos ? "" : text.substr(0, slash),
                                  slash == std::string::npos ? text : text.substr(slash + 1), kind.Scalar()};
  }
  return t;
}

namespace {

bool node_uses(const Node& n, const char* variable) {
  if (n.text && n.text->uses(variable)) return true;
  return std::any_of(n.children.begin(), n.children.end(), [&](const Node& c) { return node_uses(c, variable); });
}

}  // namespace

bool ObjectTemplate::uses(const char* variable) const { return root_ && node_uses(*root_, variable); }

std::string ObjectTemplate::render_json(const TemplateValues& values, const ObjectValues& objects) const {
  std::string out;
  render(*root_, values, objects, out);
  return out;
}

}  // namespace wm::policy
