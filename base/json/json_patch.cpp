#include "base/json/json_patch.h"

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"

namespace wm::json {

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

JsonPatchBuilder::JsonPatchBuilder(simdjson::dom::element root) : root_(root) {
  // Room for a typical workload's edits, so building the patch allocates rarely.
  nodes_.reserve(16);
  op_ends_.reserve(16);
  ops_.reserve(1024);
}

uint32_t JsonPatchBuilder::child(uint32_t parent, std::string_view key) {
  for (uint32_t c = nodes_[parent].first_child; c != kNone; c = nodes_[c].next_sibling)
    if (nodes_[c].key == key) return c;
  const auto index = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back().key = std::string(key);
  Node& p = nodes_[parent];
  p.value_json.clear();  // a leaf that gets children is a map now
  if (p.last_child == kNone)
    p.first_child = index;
  else
    nodes_[p.last_child].next_sibling = index;
  p.last_child = index;
  return index;
}

void JsonPatchBuilder::make_leaf(uint32_t node, std::string_view value_json) {
  nodes_[node].first_child = nodes_[node].last_child = kNone;  // what was under it goes
  nodes_[node].value_json = value_json;
}

void JsonPatchBuilder::write_node(std::string& out, uint32_t node) const {
  const Node& n = nodes_[node];
  if (n.first_child == kNone) {
    out += n.value_json.empty() ? std::string_view("{}") : std::string_view(n.value_json);  // a map with no entries
    return;
  }
  out.push_back('{');
  for (uint32_t c = n.first_child; c != kNone; c = nodes_[c].next_sibling) {
    if (c != n.first_child) out.push_back(',');
    append_json_string(out, nodes_[c].key);
    out.push_back(':');
    write_node(out, c);
  }
  out.push_back('}');
}

void JsonPatchBuilder::add_op() {
  size_t begin = 0;
  for (size_t end : op_ends_) {
    if (std::string_view(ops_).substr(begin, end - begin) == op_scratch_) return;
    begin = end;
  }
  ops_ += op_scratch_;
  op_ends_.push_back(ops_.size());
}

JsonPatchBuilder::Located JsonPatchBuilder::locate(std::string_view pointer, simdjson::dom::element& found,
                                                   uint32_t& node) {
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
        locate_error_ =
            "cannot create " + std::string(pointer) + ": " + std::string(existing) + " is a list without that item";
        return Located::Failed;
      }
    } else {
      locate_error_ = "cannot set " + std::string(pointer) + ": " + std::string(existing) + " is not an object";
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
      locate_error_ = "cannot replace the whole object";
      return Located::Failed;
    }
    start = existing;  // the member is there but null: replace it
    replace = true;
  }
  node = created_node(start, replace, rest);
  return Located::Created;
}

uint32_t JsonPatchBuilder::created_node(std::string_view start, bool replace, std::string_view rest) {
  const Pending* pending = nullptr;
  for (const auto& p : pending_)
    if (p.pointer == start) pending = &p;
  if (!pending) {
    pending = &pending_.emplace_back(Pending{std::string(start), replace, static_cast<uint32_t>(nodes_.size())});
    nodes_.emplace_back();
  }
  uint32_t node = pending->node;
  PointerTokens below(rest);
  while (below.next()) node = child(node, below.token());
  return node;
}

Result<void> JsonPatchBuilder::set(std::string_view pointer, std::string_view value_json) {
  simdjson::dom::element found;
  uint32_t node = kNone;
  switch (locate(pointer, found, node)) {
    case Located::Failed:
      return Error{std::move(locate_error_)};
    case Located::Exists:
      if (!same_json(found, value_json)) {
        op_scratch_.clear();
        append_op(op_scratch_, "replace", pointer, value_json);
        add_op();
      }
      return {};
    case Located::Created:
      make_leaf(node, value_json);
      return {};
  }
  return {};
}

Result<void> JsonPatchBuilder::append(std::string_view pointer, std::string_view value_json) {
  simdjson::dom::element found;
  uint32_t node = kNone;
  const Located where = locate(pointer, found, node);
  if (where == Located::Failed) return Error{std::move(locate_error_)};
  if (where == Located::Created) {
    make_leaf(node, "[" + std::string(value_json) + "]");
    return {};
  }
  if (!found.is_array()) return Error{"cannot append to " + std::string(pointer) + ": it is not a list"};
  op_scratch_.clear();
  append_op(op_scratch_, "add", std::string(pointer) + "/-", value_json);
  add_op();
  return {};
}

Result<void> JsonPatchBuilder::set_string(std::string_view pointer, std::string_view value) {
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

Result<void> JsonPatchBuilder::merge_map(std::string_view pointer, const StringPairs& entries) {
  simdjson::dom::element found;
  uint32_t node = kNone;
  switch (locate(pointer, found, node)) {
    case Located::Failed:
      return Error{std::move(locate_error_)};
    case Located::Created:
      // The map (or a parent) is missing or null: it is added whole, with these entries.
      for (const auto& [key, value] : entries) {
        value_scratch_.clear();
        append_json_string(value_scratch_, value);
        make_leaf(child(node, key), value_scratch_);
      }
      return {};
    case Located::Exists:
      break;
  }
  simdjson::dom::object map;
  if (found.get_object().get(map) != simdjson::SUCCESS)
    return Error{"cannot merge labels into " + std::string(pointer) + ": it is not a map"};
  // The map exists: look each key up in it.
  for (const auto& [key, value] : entries) {
    std::string_view current;
    simdjson::dom::element existing;
    bool present = map.at_key(key).get(existing) == simdjson::SUCCESS;
    if (present && existing.get_string().get(current) == simdjson::SUCCESS && current == value) continue;
    value_scratch_.clear();
    append_json_string(value_scratch_, value);
    op_scratch_.clear();
    const std::string_view token = key;
    append_op(op_scratch_, present ? "replace" : "add", pointer, value_scratch_, &token);
    add_op();
  }
  return {};
}

std::string JsonPatchBuilder::str() const {
  std::string out;
  out.reserve(ops_.size() + op_ends_.size() + 256 * pending_.size() + 2);
  out.push_back('[');
  size_t begin = 0;
  for (size_t end : op_ends_) {
    if (out.size() > 1) out.push_back(',');
    out.append(ops_, begin, end - begin);
    begin = end;
  }
  std::string value;
  for (const auto& p : pending_) {
    if (out.size() > 1) out.push_back(',');
    value.clear();
    write_node(value, p.node);
    append_op(out, p.replace ? "replace" : "add", p.pointer, value);
  }
  out.push_back(']');
  return out;
}

}  // namespace wm::json
