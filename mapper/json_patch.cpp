#include "mapper/json_patch.h"

#include <algorithm>

#include "mapper/json_pointer.h"
#include "mapper/json_writer.h"

namespace wm {

struct JsonPatchBuilder::Node {
  std::string value_json;  // a leaf, when there are no children
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;

  Node& child(const std::string& key) {
    for (auto& [k, n] : children)
      if (k == key) return *n;
    value_json.clear();
    children.emplace_back(key, std::make_unique<Node>());
    return *children.back().second;
  }
  void write(std::string& out) const {
    if (children.empty()) {
      out += value_json;
      return;
    }
    out.push_back('{');
    bool first = true;
    for (const auto& [k, n] : children) {
      if (!first) out.push_back(',');
      first = false;
      append_json_string(out, k);
      out.push_back(':');
      n->write(out);
    }
    out.push_back('}');
  }
};

struct JsonPatchBuilder::Pending {
  std::string pointer;
  bool replace = false;  // the location holds null: replace it instead of adding
  Node node;
};

JsonPatchBuilder::JsonPatchBuilder(simdjson::dom::element root) : root_(root) {}
JsonPatchBuilder::~JsonPatchBuilder() = default;

namespace {

void append_op(std::string& out, const char* op, const std::string& pointer, const std::string& value_json) {
  out += "{\"op\":\"";
  out += op;
  out += "\",\"path\":";
  append_json_string(out, pointer);
  out += ",\"value\":";
  out += value_json;
  out += '}';
}

}  // namespace

bool JsonPatchBuilder::set(const std::string& pointer, const std::string& value_json) {
  std::vector<std::string> tokens = split_pointer(pointer);
  // Walk down while the path exists; stop at the first missing (or null) member.
  simdjson::dom::element at = root_;
  size_t depth = 0;
  std::string existing_pointer;
  for (; depth < tokens.size(); ++depth) {
    if (at.is_null()) break;
    simdjson::dom::element next;
    simdjson::dom::object object;
    simdjson::dom::array array;
    if (at.get_object().get(object) == simdjson::SUCCESS) {
      if (object.at_key(tokens[depth]).get(next) != simdjson::SUCCESS) break;
    } else if (at.get_array().get(array) == simdjson::SUCCESS) {
      char* end = nullptr;
      unsigned long index = std::strtoul(tokens[depth].c_str(), &end, 10);
      if (tokens[depth].empty() || *end || array.at(index).get(next) != simdjson::SUCCESS) {
        error_ = "cannot create " + pointer + ": " + existing_pointer + " is a list without that item";
        return false;
      }
    } else {
      error_ = "cannot set " + pointer + ": " + existing_pointer + " is not an object";
      return false;
    }
    at = next;
    append_pointer_token(existing_pointer, tokens[depth]);
  }
  if (depth == tokens.size() && !at.is_null()) {
    if (element_json(at) != value_json) {
      std::string op;
      append_op(op, "replace", pointer, value_json);
      // Two components may share a template (a LeaderWorkerSet leader without its own): one op is enough.
      if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) ops_.push_back(std::move(op));
    }
    return true;
  }
  // Missing from tokens[depth] on, or null at depth-1 when the walk stopped on a null member.
  bool replace_null = at.is_null() && depth > 0;
  size_t first_missing = replace_null ? depth - 1 : depth;
  std::string start;
  for (size_t i = 0; i <= first_missing && i < tokens.size(); ++i) append_pointer_token(start, tokens[i]);
  if (tokens.empty()) {
    error_ = "cannot replace the whole object";
    return false;
  }
  Pending* pending = nullptr;
  for (auto& p : pending_)
    if (p->pointer == start) pending = p.get();
  if (!pending) {
    pending_.push_back(std::make_unique<Pending>());
    pending = pending_.back().get();
    pending->pointer = start;
    pending->replace = replace_null;
  }
  Node* node = &pending->node;
  for (size_t i = first_missing + 1; i < tokens.size(); ++i) node = &node->child(tokens[i]);
  node->children.clear();
  node->value_json = value_json;
  return true;
}

bool JsonPatchBuilder::set_string(const std::string& pointer, const std::string& value) {
  return set(pointer, json_string(value));
}

bool JsonPatchBuilder::merge_map(const std::string& pointer, const StringPairs& entries) {
  simdjson::dom::element existing;
  const bool exists = root_.at_pointer(pointer).get(existing) == simdjson::SUCCESS;
  const bool is_other = exists && !existing.is_null() && !existing.is_object();
  if (is_other) {
    error_ = "cannot merge labels into " + pointer + ": it is not a map";
    return false;
  }
  simdjson::dom::object map;
  if (exists && existing.get_object().get(map) == simdjson::SUCCESS) {
    // The map exists: look each key up in it, rather than walking from the root per key.
    for (const auto& [key, value] : entries) {
      std::string_view current;
      simdjson::dom::element found;
      bool present = map.at_key(key).get(found) == simdjson::SUCCESS;
      if (present && found.get_string().get(current) == simdjson::SUCCESS && current == value) continue;
      std::string op;
      append_op(op, present ? "replace" : "add", pointer_child(pointer, key), json_string(value));
      if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) ops_.push_back(std::move(op));
    }
    return true;
  }
  for (const auto& [key, value] : entries)
    if (!set(pointer_child(pointer, key), json_string(value))) return false;
  return true;
}

std::string JsonPatchBuilder::str() const {
  std::string out = "[";
  for (const auto& op : ops_) {
    if (out.size() > 1) out.push_back(',');
    out += op;
  }
  for (const auto& p : pending_) {
    if (out.size() > 1) out.push_back(',');
    std::string value;
    p->node.write(value);
    append_op(out, p->replace ? "replace" : "add", p->pointer, value);
  }
  out.push_back(']');
  return out;
}

}  // namespace wm
