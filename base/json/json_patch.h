// Builds an RFC 6902 JSON Patch against a parsed object: sets values and merges string maps, adding
// missing parents whole (a patch may never "add" under a path that does not exist), skipping no-op
// edits, and escaping keys (~0, ~1).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace wm::json {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

class JsonPatchBuilder {
 public:
  explicit JsonPatchBuilder(simdjson::dom::element root);

  // `value_json` is JSON text. Fails when the location cannot hold it (a parent that is a scalar, the root).
  Result<void> set(std::string_view pointer, std::string_view value_json);
  Result<void> set_string(std::string_view pointer, std::string_view value);
  // Adds `value_json` at the end of the list at `pointer`, creating the list if missing.
  Result<void> append(std::string_view pointer, std::string_view value_json);
  // Adds or replaces each key of the string map at `pointer`, creating the map if missing.
  Result<void> merge_map(std::string_view pointer, const StringPairs& entries);

  bool empty() const { return op_ends_.empty() && pending_.empty(); }
  size_t size() const { return op_ends_.size() + pending_.size(); }
  std::string str() const;  // the patch as a JSON array

 private:
  // A subtree to create, kept flat: nodes refer to each other by index into nodes_.
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    std::string key;
    std::string value_json;  // a leaf's value, when it has no children
    uint32_t first_child = kNone, last_child = kNone, next_sibling = kNone;
  };
  struct Pending {
    std::string pointer;   // the first missing location
    bool replace = false;  // the location holds null: replace it instead of adding
    uint32_t node;
  };
  enum class Located { Exists, Created, Failed };

  // Finds `pointer` in the object (`found`), or the node of a pending subtree that will create it.
  Located locate(std::string_view pointer, simdjson::dom::element& found, uint32_t& node);
  // The node of the pending subtree rooted at `start` (made on first use) for the tokens of `rest` below it.
  uint32_t created_node(std::string_view start, bool replace, std::string_view rest);
  uint32_t child(uint32_t parent, std::string_view key);
  void make_leaf(uint32_t node, std::string_view value_json);
  void write_node(std::string& out, uint32_t node) const;
  bool same_json(simdjson::dom::element element, std::string_view value_json);
  // Adds the operation in op_scratch_ unless the same one is there (two components may share a template).
  void add_op();

  simdjson::dom::element root_;
  std::string ops_;               // serialized operations on existing members, back to back
  std::vector<size_t> op_ends_;   // where each one ends in ops_
  std::vector<Pending> pending_;  // subtrees to create
  std::vector<Node> nodes_;
  std::string locate_error_;                          // why locate() failed
  std::string scratch_, value_scratch_, op_scratch_;  // reused text
};

}  // namespace wm::json
