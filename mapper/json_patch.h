// Builds an RFC 6902 JSON Patch against a parsed object: sets values and merges string maps, adding
// missing parents whole (a patch may never "add" under a path that does not exist), skipping no-op
// edits, and escaping keys (~0, ~1).
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wm {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

class JsonPatchBuilder {
 public:
  explicit JsonPatchBuilder(simdjson::dom::element root);
  ~JsonPatchBuilder();

  // `value_json` is JSON text. Returns false (with `error()` set) when the location cannot hold it.
  bool set(const std::string& pointer, const std::string& value_json);
  bool set_string(const std::string& pointer, const std::string& value);
  // Adds or replaces each key of the string map at `pointer`, creating the map if missing.
  bool merge_map(const std::string& pointer, const StringPairs& entries);

  bool empty() const { return ops_.empty() && pending_.empty(); }
  size_t size() const { return ops_.size() + pending_.size(); }
  std::string str() const;  // the patch as a JSON array
  const std::string& error() const { return error_; }

 private:
  struct Node;
  struct Pending;
  simdjson::dom::element root_;
  std::vector<std::string> ops_;                   // serialized operations on existing members
  std::vector<std::unique_ptr<Pending>> pending_;  // subtrees to create, by the first missing location
  std::string error_;
};

}  // namespace wm
