#include "webhook/replica_gang.h"

#include <cctype>

#include "base/json/json_patch.h"
#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "base/json/value.h"

namespace wm::webhook {

namespace {

// The entries of the string map at `pointer` whose value is `name`, with the key appended; the marker itself stays.
json::StringPairs renamed(simdjson::dom::element object, std::string_view pointer, std::string_view name,
                          const std::string& key) {
  json::StringPairs out;
  simdjson::dom::object map;
  if (object.at_pointer(pointer).get_object().get(map) != simdjson::SUCCESS) return out;
  for (auto [k, v] : map) {
    std::string_view value;
    if (k == kReplicaGangAnnotation || v.get_string().get(value) != simdjson::SUCCESS || value != name) continue;
    out.emplace_back(std::string(k), std::string(name) + "-" + key);
  }
  return out;
}

// A label value may hold letters, digits, '-', '_' and '.', and so must what is appended to one.
bool fits_a_label(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

std::optional<ReplicaGangNames> name_replica_gang(simdjson::dom::element object, const catalog::Catalog& catalog) {
  // Looked up on every admission of a controlled object: the pointers are built once.
  static const std::string gang_at = json::pointer_child("/metadata/annotations", kReplicaGangAnnotation);
  static const std::string key_at = json::pointer_child("/metadata/annotations", kReplicaKeyAnnotation);
  const std::string_view name = json::string_at(object, gang_at);
  if (name.empty()) return std::nullopt;
  ReplicaGangNames out;
  out.gang = std::string(name);
  const std::string_view key_text = json::string_at(object, key_at);
  const catalog::Path key_path = catalog.replica_key(key_text);
  const std::string who = "pod " + std::string(json::string_at(object, "/metadata/name"));
  if (!key_path) {
    out.warnings.push_back(who + " of gang " + std::string(name) + ": no definition reads replica keys with " +
                           std::string(kReplicaKeyAnnotation) + " \"" + std::string(key_text) +
                           "\"; it stays in the gang every copy shares");
    return out;
  }
  json::ObjectDocument doc(object);
  const json::EvalResult r = key_path->evaluate(doc, false);
  std::optional<std::string> key;
  if (r.ok() && !r.values.empty()) key = r.values.front().as_scalar_string();
  if (!key || !fits_a_label(*key)) {
    // The replica's operator may label it after this webhook; the API server calls again (reinvocationPolicy
    // IfNeeded) once it has.
    out.warnings.push_back(who + " of gang " + std::string(name) + ": " + std::string(key_text) +
                           (key ? " is \"" + *key + "\", not a label value" : " is not set yet") +
                           "; its replica's gang is named once it is");
    return out;
  }
  out.suffix = "-" + *key;
  json::JsonPatchBuilder patch(object);
  for (const char* map : {"/metadata/labels", "/metadata/annotations"})
    if (json::StringPairs entries = renamed(object, map, name, *key); !entries.empty())
      if (auto done = patch.merge_map(map, entries); !done) out.warnings.push_back(who + ": " + done.error());
  if (!patch.empty()) out.patch = patch.str();
  return out;
}

}  // namespace wm::webhook
