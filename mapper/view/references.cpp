#include "mapper/view/references.h"

#include <mutex>

#include "mapper/json/json_read.h"

namespace wm {

std::string ReferenceStore::key(std::string_view group, std::string_view kind, std::string_view namespace_name,
                                std::string_view name) {
  std::string k;
  k.reserve(group.size() + kind.size() + namespace_name.size() + name.size() + 3);
  k.append(group).append("/").append(kind).append("/").append(namespace_name).append("/").append(name);
  return k;
}

namespace {

struct Identity {
  std::string group, kind, namespace_name, name;
};

bool identify(const std::string& json, Identity& out, std::string& error) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto e = parser.parse(json).get(root); e) {
    error = std::string("not JSON: ") + simdjson::error_message(e);
    return false;
  }
  const std::string_view api_version = string_member(root, "apiVersion");
  out.kind = string_member(root, "kind");
  out.name = string_at(root, "/metadata/name");
  out.namespace_name = string_at(root, "/metadata/namespace");
  if (api_version.empty() || out.kind.empty() || out.name.empty()) {
    error = "an object needs apiVersion, kind and metadata.name";
    return false;
  }
  out.group = split_api_version(api_version).first;
  return true;
}

}  // namespace

bool ReferenceStore::put(std::string json, std::string& error) {
  Identity id;
  if (!identify(json, id, error)) return false;
  auto held = std::make_shared<const std::string>(std::move(json));
  std::unique_lock lock(mutex_);
  objects_[key(id.group, id.kind, id.namespace_name, id.name)] = std::move(held);
  return true;
}

void ReferenceStore::remove(std::string_view group, std::string_view kind, std::string_view namespace_name,
                            std::string_view name) {
  std::unique_lock lock(mutex_);
  if (auto it = objects_.find(key(group, kind, namespace_name, name)); it != objects_.end()) objects_.erase(it);
}

void ReferenceStore::replace_kind(std::string_view group, std::string_view kind, std::vector<std::string> objects) {
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> fresh;
  for (auto& json : objects) {
    Identity id;
    std::string error;
    if (!identify(json, id, error) || id.group != group || id.kind != kind) continue;
    fresh.emplace_back(key(id.group, id.kind, id.namespace_name, id.name),
                       std::make_shared<const std::string>(std::move(json)));
  }
  const std::string prefix = std::string(group) + "/" + std::string(kind) + "/";
  std::unique_lock lock(mutex_);
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix);)
    it = objects_.erase(it);
  for (auto& [k, v] : fresh) objects_[std::move(k)] = std::move(v);
}

std::shared_ptr<const std::string> ReferenceStore::find(std::string_view group, std::string_view kind,
                                                        std::string_view namespace_name, std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = objects_.find(key(group, kind, namespace_name, name));
  return it == objects_.end() ? nullptr : it->second;
}

size_t ReferenceStore::size() const {
  std::shared_lock lock(mutex_);
  return objects_.size();
}

namespace {

// The one string an expression yields; empty (with `problem`) otherwise.
std::string single_string(const Path& path, ObjectDocument& doc, const std::string& what, std::string& problem) {
  EvalResult r = path->evaluate(doc, /*want_pointers=*/false);
  if (!r.ok()) {
    problem = what + " (" + path->source() + "): " + r.error;
    return {};
  }
  if (r.values.size() != 1 || !r.values.front().as_scalar_string() || r.values.front().is_null()) {
    problem = what + " (" + path->source() + ") must yield one string; the object gives " +
              (r.values.empty() ? std::string("nothing") : r.values.front().json());
    return {};
  }
  return *r.values.front().as_scalar_string();
}

}  // namespace

std::shared_ptr<ResolvedDocument> resolve_references(const Definition& definition, ObjectDocument& doc,
                                                     const ReferenceStore* store, std::string_view namespace_name,
                                                     std::string& problem) {
  std::string input = "{\"object\":" + simdjson::to_string(doc.root()) + ",\"references\":{";
  bool first = true;
  for (const auto& ref : definition.references) {
    const std::string what = "reference " + ref.name;
    std::string kind_name = ref.kinds.front().gvk.kind;
    if (ref.kind && (kind_name = single_string(ref.kind, doc, what + " kind", problem)).empty()) return nullptr;
    const ReferenceDefinition::Kind* kind = nullptr;
    for (const auto& k : ref.kinds)
      if (k.gvk.kind == kind_name) kind = &k;
    if (!kind) {
      std::string known;
      for (const auto& k : ref.kinds) known += (known.empty() ? "" : ", ") + k.gvk.kind;
      problem = what + ": kind " + kind_name + " is none the definition reads (" + known + ")";
      return nullptr;
    }
    const std::string name = single_string(ref.object_name, doc, what + " name", problem);
    if (name.empty()) return nullptr;
    // In the workload's namespace; a manifest that names none (the CLI's) finds referenced objects that name none.
    const std::string ns = kind->namespaced ? std::string(namespace_name) : std::string();
    const std::string object = kind->gvk.kind + " " + (ns.empty() ? "" : ns + "/") + name;
    auto found = store ? store->find(kind->gvk.group, kind->gvk.kind, ns, name) : nullptr;
    if (!found) {
      problem = what + ": " + object + " (" + kind->gvk.group + ") is not known" +
                (store ? " to workload-map: the cluster side has not seen it (or the CLI was not given it with --with)"
                       : ": nothing holds referenced objects here (the CLI reads them with --with FILE)");
      return nullptr;
    }
    input += (first ? "\"" : ",\"") + ref.name + "\":" + *found;
    first = false;
  }
  input += "}}";

  auto resolved = std::make_shared<ResolvedDocument>();
  simdjson::dom::element root;
  if (auto e = resolved->parser.parse(input).get(root); e) {
    problem = std::string("referenced objects: ") + simdjson::error_message(e);
    return nullptr;
  }
  resolved->input = std::make_unique<ObjectDocument>(root);
  EvalResult r = definition.resolved_object->evaluate(*resolved->input, /*want_pointers=*/false);
  if (!r.ok() || r.values.size() != 1 || !r.values.front().element.is_object() || r.values.front().computed) {
    problem = "resolved object (" + definition.resolved_object->source() + ") " +
              (!r.ok() ? r.error : "must yield one object");
    return nullptr;
  }
  resolved->object = std::make_unique<ObjectDocument>(r.values.front().element);
  return resolved;
}

}  // namespace wm
