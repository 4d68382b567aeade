#include "mapper/view/references.h"

#include <mutex>

#include "base/json/json_read.h"

namespace wm::view {

std::string ReferenceStore::kind_key(std::string_view group, std::string_view kind) {
  return std::string(group) + "/" + std::string(kind) + "/";
}

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

Result<Identity> identify(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto e = parser.parse(json).get(root); e) return Error{std::string("not JSON: ") + simdjson::error_message(e)};
  Identity out;
  const std::string_view api_version = json::string_member(root, "apiVersion");
  out.kind = json::string_member(root, "kind");
  out.name = json::string_at(root, "/metadata/name");
  out.namespace_name = json::string_at(root, "/metadata/namespace");
  if (const std::string_view generate_name = json::string_at(root, "/metadata/generateName");
      out.name.empty() && !generate_name.empty())  // named by the API server only once it is created
    return Error{
        out.kind + " " + std::string(generate_name) + "*: an object made from generateName cannot be referred to",
        ErrorCode::NotFound};
  if (api_version.empty() || out.kind.empty() || out.name.empty())
    return Error{"an object needs apiVersion, kind and metadata.name"};
  out.group = json::split_api_version(api_version).first;
  return out;
}

}  // namespace

Result<void> ReferenceStore::put(std::string json) {
  auto id = identify(json);
  if (!id) return id.failure();
  auto held = std::make_shared<const std::string>(std::move(json));
  std::unique_lock lock(mutex_);
  objects_[key(id->group, id->kind, id->namespace_name, id->name)] = std::move(held);
  return {};
}

void ReferenceStore::remove(std::string_view group, std::string_view kind, std::string_view namespace_name,
                            std::string_view name) {
  std::unique_lock lock(mutex_);
  if (auto it = objects_.find(key(group, kind, namespace_name, name)); it != objects_.end()) objects_.erase(it);
}

void ReferenceStore::replace_kind(std::string_view group, std::string_view kind, std::vector<std::string> objects) {
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> fresh;
  for (auto& json : objects) {
    auto id = identify(json);
    if (!id || id->group != group || id->kind != kind) continue;
    fresh.emplace_back(key(id->group, id->kind, id->namespace_name, id->name),
                       std::make_shared<const std::string>(std::move(json)));
  }
  const std::string prefix = kind_key(group, kind);
  std::unique_lock lock(mutex_);
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix);)
    it = objects_.erase(it);
  for (auto& [k, v] : fresh) objects_[std::move(k)] = std::move(v);
  listed_kinds_.insert(prefix);
}

void ReferenceStore::forget_kind(std::string_view group, std::string_view kind) {
  const std::string prefix = kind_key(group, kind);
  std::unique_lock lock(mutex_);
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix);)
    it = objects_.erase(it);
  listed_kinds_.erase(prefix);
}

bool ReferenceStore::holds_kind(std::string_view group, std::string_view kind) const {
  const std::string prefix = kind_key(group, kind);
  std::shared_lock lock(mutex_);
  return listed_kinds_.contains(prefix);
}

std::shared_ptr<const std::string> ReferenceStore::find(std::string_view group, std::string_view kind,
                                                        std::string_view namespace_name, std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = objects_.find(key(group, kind, namespace_name, name));
  return it == objects_.end() ? nullptr : it->second;
}

void ReferenceStore::set_served(std::string_view group, std::string_view kind, bool served) {
  std::string entry = kind_key(group, kind);
  std::unique_lock lock(mutex_);
  if (served)
    unserved_kinds_.erase(entry);
  else
    unserved_kinds_.insert(std::move(entry));
}

bool ReferenceStore::known_unserved(std::string_view group, std::string_view kind) const {
  const std::string entry = kind_key(group, kind);
  std::shared_lock lock(mutex_);
  return unserved_kinds_.contains(entry);
}

void ReferenceStore::set_node_domains(std::shared_ptr<const NodeDomains> domains) {
  std::unique_lock lock(mutex_);
  node_domains_ = std::move(domains);
}

std::shared_ptr<const NodeDomains> ReferenceStore::node_domains() const {
  std::shared_lock lock(mutex_);
  return node_domains_;
}

std::vector<std::shared_ptr<const std::string>> ReferenceStore::objects_of(std::string_view group,
                                                                           std::string_view kind) const {
  const std::string prefix = kind_key(group, kind);
  std::vector<std::shared_ptr<const std::string>> out;
  std::shared_lock lock(mutex_);
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it)
    out.push_back(it->second);
  return out;
}

size_t ReferenceStore::size() const {
  std::shared_lock lock(mutex_);
  return objects_.size();
}

namespace {

// The one non-empty string an expression yields; with `absent_ok`, "" when it yields nothing or null.
Result<std::string> single_string(const catalog::Path& path, json::ObjectDocument& doc, const std::string& what,
                                  bool absent_ok = false) {
  json::EvalResult r = path->evaluate(doc, /*want_pointers=*/false);
  if (!r.ok()) return Error{what + " (" + path->source() + "): " + r.error};
  if (absent_ok && (r.values.empty() || (r.values.size() == 1 && r.values.front().is_null()))) return std::string();
  if (r.values.size() != 1 || !r.values.front().as_scalar_string() || r.values.front().is_null() ||
      r.values.front().as_scalar_string()->empty())
    return Error{what + " (" + path->source() + ") must yield one string; the object gives " +
                 (r.values.empty() ? std::string("nothing") : r.values.front().json())};
  return *r.values.front().as_scalar_string();
}

// One reference as the resolved-object expression reads it: the object's JSON, "null" for an optional reference the
// object does not name (`named` false) or that is not known (`missing` says why).
struct Lookup {
  std::string json = "null";
  bool named = false;
  std::string missing;
};

Result<Lookup> look_up(const catalog::ReferenceDefinition& ref, json::ObjectDocument& doc, const ReferenceStore* store,
                       std::string_view namespace_name) {
  const std::string what = "reference " + ref.name;
  auto named = single_string(ref.object_name, doc, what + " name", ref.optional);
  if (!named) return Error{named.error()};
  Lookup out;
  if (named->empty()) return out;  // optional, and not named
  out.named = true;
  std::string kind_name = ref.kinds.front().gvk.kind;
  if (ref.kind) {
    auto kind_named = single_string(ref.kind, doc, what + " kind");
    if (!kind_named) return Error{kind_named.error()};
    kind_name = std::move(*kind_named);
  }
  const catalog::ReferenceDefinition::Kind* kind = nullptr;
  for (const auto& k : ref.kinds)
    if (k.gvk.kind == kind_name) kind = &k;
  if (!kind) {
    std::string known;
    for (const auto& k : ref.kinds) known += (known.empty() ? "" : ", ") + k.gvk.kind;
    return Error{what + ": kind " + kind_name + " is none the definition reads (" + known + ")"};
  }
  const std::string& name = *named;
  // In the workload's namespace; a manifest that names none (the CLI's) finds referenced objects that name none.
  const std::string ns = kind->namespaced ? std::string(namespace_name) : std::string();
  const std::string object = kind->gvk.kind + " " + (ns.empty() ? "" : ns + "/") + name;
  auto found = store ? store->find(kind->gvk.group, kind->gvk.kind, ns, name) : nullptr;
  if (found) {
    out.json = *found;
    return out;
  }
  std::string why =
      what + ": " + object + " (" + kind->gvk.group + ") is not known" +
      (store ? " to workload-map: the cluster side has not seen it (or the CLI was not given it with --with)"
             : ": nothing holds referenced objects here (the CLI reads them with --with FILE)");
  if (!ref.optional) return Error{std::move(why)};
  out.missing = std::move(why);
  return out;
}

}  // namespace

Result<std::shared_ptr<ResolvedDocument>> resolve_references(const catalog::Definition& definition,
                                                             json::ObjectDocument& doc, const ReferenceStore* store,
                                                             std::string_view namespace_name) {
  std::string input = "{\"object\":" + simdjson::to_string(doc.root()) + ",\"references\":{";
  std::vector<std::string> missing;
  bool any_named = false;
  for (size_t i = 0; i < definition.references.size(); ++i) {
    const auto& ref = definition.references[i];
    auto found = look_up(ref, doc, store, namespace_name);
    if (!found) return found.failure();
    any_named = any_named || found->named;
    if (!found->missing.empty()) missing.push_back(std::move(found->missing));
    input += (i ? ",\"" : "\"") + ref.name + "\":" + found->json;
  }
  input += "}}";
  if (!any_named) return std::shared_ptr<ResolvedDocument>();

  auto resolved = std::make_shared<ResolvedDocument>();
  resolved->missing = std::move(missing);
  simdjson::dom::element root;
  if (auto e = resolved->parser.parse(input).get(root); e)
    return Error{std::string("referenced objects: ") + simdjson::error_message(e)};
  resolved->input = std::make_unique<json::ObjectDocument>(root);
  json::EvalResult r = definition.resolved_object->evaluate(*resolved->input, /*want_pointers=*/false);
  if (!r.ok() || r.values.size() != 1 || !r.values.front().element.is_object() || r.values.front().computed)
    return Error{"resolved object (" + definition.resolved_object->source() + ") " +
                 (!r.ok() ? r.error : "must yield one object")};
  resolved->object = std::make_unique<json::ObjectDocument>(r.values.front().element);
  return resolved;
}

}  // namespace wm::view
