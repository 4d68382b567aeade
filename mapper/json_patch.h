// Builds an RFC 6902 JSON Patch against a parsed object: sets values and merges string maps, adding
// missing parents whole (a patch may never "add" under a path that does not exist), skipping no-op
// edits, and escaping keys (~0, ~1).
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wm {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

class JsonPatchBuilder {
 public:
  explicit JsonPatchBuilder(simdjson::dom::element root);
  ~JsonPatchBuilder();

  // `value_json` is JSON text. Returns false (with `error()` set) when the location cannot hold it.
  bool set(std::string_view pointer, std::string_view value_json);
  bool set_string(std::string_view pointer, std::string_view value);
  // Adds or replaces each key of the string map at `pointer`, creating the map if missing.
  bool merge_map(std::string_view pointer, const StringPairs& entries);

  bool empty() const { return ops_.empty() && pending_.empty(); }
  size_t size() const { return ops_.size() + pending_.size(); }
  std::string str() const;  // the patch as a JSON array
  const std::string& error() const { return error_; }

 private:
  struct Node;
  struct Pending;
  enum class Located { Exists, Created, Failed };
  // Finds `pointer` in the object (`found`), or the node of the pending subtree that will create it.
  Located locate(std::string_view pointer, simdjson::dom::element& found, Node*& node);
  bool same_json(simdjson::dom::element element, std::string_view value_json);
  void add_op(std::string op);
  simdjson::dom::element root_;
  std::vector<std::string> ops_;                   // serialized operations on existing members
  std::vector<std::unique_ptr<Pending>> pending_;  // subtrees to create, by the first missing location
  std::string error_;
  std::string scratch_, value_scratch_;  // reused: JSON text of existing and of new values
};

}  // namespace wm
