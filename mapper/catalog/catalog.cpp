#include "mapper/catalog/catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/json/json_read.h"
#include "mapper/catalog/definition_loader.h"
#include "mapper/catalog/embedded_definitions.h"

namespace wm::catalog {

namespace {

void finish_into(Catalog& catalog, DefinitionLoader& loader, yaml::Diagnostics& errors) {
  DefinitionLoad load = loader.finish();
  errors.insert(errors.end(), load.errors.begin(), load.errors.end());
  for (auto& d : load.definitions) catalog.add(std::move(d), errors);
}

bool same_kind(const GroupVersionKind& a, const GroupVersionKind& b) {
  return a.group == b.group && a.version == b.version && a.kind == b.kind;
}

}  // namespace

Catalog Catalog::embedded(yaml::Diagnostics& errors) {
  Catalog catalog;
  DefinitionLoader loader;
  for (const auto& file : embedded_definition_files()) loader.load(std::string(file.text), std::string(file.name));
  finish_into(catalog, loader, errors);
  return catalog;
}

Catalog Catalog::from_directory(const std::string& dir, yaml::Diagnostics& errors) {
  Catalog catalog;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  if (ec) {
    errors.push_back({dir, 0, "", "cannot read the directory: " + ec.message()});
    return catalog;
  }
  std::sort(files.begin(), files.end());
  DefinitionLoader loader;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      errors.push_back({path.string(), 0, "", "cannot read the file"});
      continue;
    }
    loader.load(text.str(), path.string());
  }
  finish_into(catalog, loader, errors);
  return catalog;
}

void Catalog::add(Definition definition, yaml::Diagnostics& errors) {
  for (const auto& d : definitions_)
    if (same_kind(d->gvk, definition.gvk)) {
      errors.push_back({definition.file, definition.root().line, "spec.structureDefinition.rootComponent.kind",
                        definition.gvk.str() + " is already defined in " + d->file});
      return;
    }
  definitions_.push_back(std::make_shared<const Definition>(std::move(definition)));
}

void Catalog::put(std::shared_ptr<const Definition> definition) {
  auto it = std::find_if(definitions_.begin(), definitions_.end(),
                         [&](const auto& mine) { return same_kind(mine->gvk, definition->gvk); });
  if (it != definitions_.end())
    *it = std::move(definition);
  else
    definitions_.push_back(std::move(definition));
}

std::vector<std::string> Catalog::merge(Catalog&& other) {
  std::vector<std::string> replaced;
  for (auto& d : other.definitions_) {
    auto it = std::find_if(definitions_.begin(), definitions_.end(),
                           [&](const auto& mine) { return same_kind(mine->gvk, d->gvk); });
    if (it != definitions_.end()) {
      replaced.push_back(d->gvk.str());
      *it = std::move(d);
    } else {
      definitions_.push_back(std::move(d));
    }
  }
  return replaced;
}

void Catalog::warm_up() const {
  for (const auto& d : definitions_) for_each_object_path(*d, [](const std::string&, const Path& p) { p->warm_up(); });
}

namespace {

// Whether `definition` makes objects of this kind: one of its components' kinds or its additionalChildKinds.
bool makes(const Definition& definition, std::string_view group, std::string_view kind) {
  auto same = [&](const GroupVersionKind& gvk) { return gvk.kind == kind && gvk.group == group; };
  return std::any_of(definition.components.begin(), definition.components.end(),
                     [&](const ComponentDefinition& c) { return c.kind && same(*c.kind); }) ||
         std::any_of(definition.child_kinds.begin(), definition.child_kinds.end(), same);
}

}  // namespace

bool Catalog::part_of_a_workload(std::string_view api_version, std::string_view kind) const {
  if (find(api_version, kind).definition) return true;
  const auto group = json::split_api_version(api_version).first;
  return std::any_of(definitions_.begin(), definitions_.end(), [&](const auto& d) { return makes(*d, group, kind); });
}

bool Catalog::part_of_its_owner(std::string_view owner_api_version, std::string_view owner_kind, std::string_view group,
                                std::string_view kind) const {
  const Definition* owner = find(owner_api_version, owner_kind).definition;
  if (!owner) return part_of_a_workload(owner_api_version, owner_kind);  // a component's or child's kind
  return !owner->owns_only_components || makes(*owner, group, kind);
}

Path Catalog::replica_key(std::string_view text) const {
  for (const auto& d : definitions_)
    for (const auto& c : d->components)
      if (c.replica_key && c.replica_key->source() == text) return c.replica_key;
  return nullptr;
}

Catalog::Match Catalog::find(std::string_view api_version, std::string_view kind) const {
  const auto [group, version] = json::split_api_version(api_version);
  Match none;
  for (const auto& d : definitions_) {
    if (d->gvk.kind != kind || d->gvk.group != group) continue;
    for (const auto& v : d->versions) {
      if (v == version) return {d.get(), {}};
      none.uncovered_version_of += (none.uncovered_version_of.empty() ? "" : ", ") + v;
    }
  }
  return none;
}

}  // namespace wm::catalog
