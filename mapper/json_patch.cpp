#include "mapper/json_patch.h"

#include <algorithm>

#include "mapper/json_pointer.h"
#include "mapper/json_writer.h"

namespace wm {

struct JsonPatchBuilder::Node {
  std::string value_json;  // a leaf, when there are no children
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;

  Node& child(std::string_view key) {
    for (auto& [k, n] : children)
      if (k == key) return *n;
    value_json.clear();
    children.emplace_back(std::string(key), std::make_unique<Node>());
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

// {"op":OP,"path":POINTER[/TOKEN],"value":VALUE}; the token is escaped as a pointer token.
void append_op(std::string& out, const char* op, std::string_view pointer, std::string_view value_json,
               const std::string_view* token = nullptr) {
  out += "{\"op\":\"";
  out += op;
  out += "\",\"path\":";
  if (token) {
    std::string path;
    path.reserve(pointer.size() + token->size() + 1);
    path.append(pointer);
    append_pointer_token(path, *token);
    append_json_string(out, path);
  } else {
    append_json_string(out, pointer);
  }
  out += ",\"value\":";
  out += value_json;
  out += '}';
}

bool is_index(std::string_view raw, size_t& index) {
  if (raw.empty() || raw.size() > 18) return false;
  index = 0;
  for (char c : raw) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return true;
}

}  // namespace

void JsonPatchBuilder::add_op(std::string op) {
  // Two components may share a template (a LeaderWorkerSet leader without its own): one op is enough.
  if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) ops_.push_back(std::move(op));
}

JsonPatchBuilder::Located JsonPatchBuilder::locate(std::string_view pointer, simdjson::dom::element& found,
                                                   Node*& node) {
  // Walk down while the path exists; stop at the first missing (or null) member.
  PointerTokens walk(pointer);
  simdjson::dom::element at = root_;
  std::string_view existing;  // the part of `pointer` that is there
  std::string_view start, rest;
  bool missing = false, replace = false;
  while (walk.next()) {
    if (at.is_null()) {
      // A null member on the way: replace it with the subtree (or, at the root, add the first token).
      missing = true;
      replace = !existing.empty();
      start = replace ? existing : walk.prefix();
      rest = replace ? pointer.substr(existing.size()) : walk.rest();
      break;
    }
    simdjson::dom::element next;
    simdjson::dom::object object;
    simdjson::dom::array array;
    if (at.get_object().get(object) == simdjson::SUCCESS) {
      if (object.at_key(walk.token()).get(next) != simdjson::SUCCESS) {
        missing = true;
        start = walk.prefix();
        rest = walk.rest();
        break;
      }
    } else if (at.get_array().get(array) == simdjson::SUCCESS) {
      size_t index = 0;
      if (!is_index(walk.raw(), index) || array.at(index).get(next) != simdjson::SUCCESS) {
        error_ = "cannot create " + std::string(pointer) + ": " + std::string(existing) +
                 " is a list without that item";
        return Located::Failed;
      }
    } else {
      error_ = "cannot set " + std::string(pointer) + ": " + std::string(existing) + " is not an object";
      return Located::Failed;
    }
    at = next;
    existing = walk.prefix();
  }
  if (!missing) {
    if (!at.is_null()) {
      found = at;
      return Located::Exists;
    }
    if (existing.empty()) {
      error_ = "cannot replace the whole object";
      return Located::Failed;
    }
    start = existing;  // the member is there but null: replace it
    replace = true;
  }
  Pending* pending = nullptr;
  for (auto& p : pending_)
    if (p->pointer == start) pending = p.get();
  if (!pending) {
    pending_.push_back(std::make_unique<Pending>());
    pending = pending_.back().get();
    pending->pointer = std::string(start);
    pending->replace = replace;
  }
  node = &pending->node;
  PointerTokens below(rest);
  while (below.next()) node = &node->child(below.token());
  return Located::Created;
}

bool JsonPatchBuilder::set(std::string_view pointer, std::string_view value_json) {
  simdjson::dom::element found;
  Node* node = nullptr;
  switch (locate(pointer, found, node)) {
    case Located::Failed:
      return false;
    case Located::Exists:
      if (!same_json(found, value_json)) {
        std::string op;
        append_op(op, "replace", pointer, value_json);
        add_op(std::move(op));
      }
      return true;
    case Located::Created:
      node->children.clear();
      node->value_json = value_json;
      return true;
  }
  return false;
}

bool JsonPatchBuilder::set_string(std::string_view pointer, std::string_view value) {
  value_scratch_.clear();
  append_json_string(value_scratch_, value);
  return set(pointer, value_scratch_);
}

bool JsonPatchBuilder::same_json(simdjson::dom::element element, std::string_view value_json) {
  std::string_view s;
  if (element.get_string().get(s) == simdjson::SUCCESS) {
    scratch_.clear();
    append_json_string(scratch_, s);
    return scratch_ == value_json;
  }
  return element_json(element) == value_json;
}

bool JsonPatchBuilder::merge_map(std::string_view pointer, const StringPairs& entries) {
  simdjson::dom::element found;
  Node* node = nullptr;
  switch (locate(pointer, found, node)) {
    case Located::Failed:
      return false;
    case Located::Created:
      // The map (or a parent) is missing or null: it is added whole, with these entries.
      for (const auto& [key, value] : entries) {
        Node& entry = node->child(key);
        entry.children.clear();
        entry.value_json.clear();
        append_json_string(entry.value_json, value);
      }
      return true;
    case Located::Exists:
      break;
  }
  simdjson::dom::object map;
  if (found.get_object().get(map) != simdjson::SUCCESS) {
    error_ = "cannot merge labels into " + std::string(pointer) + ": it is not a map";
    return false;
  }
  // The map exists: look each key up in it.
  for (const auto& [key, value] : entries) {
    std::string_view current;
    simdjson::dom::element existing;
    bool present = map.at_key(key).get(existing) == simdjson::SUCCESS;
    if (present && existing.get_string().get(current) == simdjson::SUCCESS && current == value) continue;
    value_scratch_.clear();
    append_json_string(value_scratch_, value);
    std::string op;
    const std::string_view token = key;
    append_op(op, present ? "replace" : "add", pointer, value_scratch_, &token);
    add_op(std::move(op));
  }
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
