#include "cli/file_api.h"

#include <simdjson.h>

#include <iostream>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "mapper/catalog/documents.h"

namespace wm::cli {

namespace {

// The plural this API serves a kind under: any will do that discovery and the paths agree on.
std::string plural_of(std::string_view kind) {
  std::string out;
  for (char c : kind) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out + "s";
}

std::vector<std::string> segments_of(std::string_view path) {
  std::vector<std::string> out;
  for (size_t at = 0; at < path.size();) {
    const size_t slash = path.find('/', at);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > at) out.emplace_back(path.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

kube::Response not_found(const std::string& what) {
  json::JsonWriter w;
  w.begin_object().field("kind", "Status").field("code", 404).field("message", what + " not found").end_object();
  return {404, w.take(), {}};
}

}  // namespace

std::unique_ptr<FileApi> FileApi::read(const std::vector<std::string>& files) {
  auto api = std::unique_ptr<FileApi>(new FileApi());
  bool ok = true;
  for (const auto& file : files) {
    yaml::Diagnostics errors;
    for (const auto& document : catalog::read_document_file(file, errors)) api->add(document.json);
    for (const auto& e : errors) std::cerr << e.str() << "\n";
    ok = ok && errors.empty();
  }
  if (!ok) return nullptr;
  for (auto& [group_version, kinds] : api->kinds_)
    for (auto& [plural, kind] : kinds)
      if (kind.namespaced)
        for (auto& o : kind.objects)
          if (o.namespace_name.empty()) o.namespace_name = "default";
  return api;
}

void FileApi::add(std::string_view json_text) {
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(json_text.data(), json_text.size()).get(object) != simdjson::SUCCESS || !object.is_object()) return;
  simdjson::dom::array items;
  if (json::string_member(object, "kind").ends_with("List") && object["items"].get_array().get(items) == 0) {
    for (simdjson::dom::element item : items) add(json::element_json(item));
    return;
  }
  const std::string_view api_version = json::string_member(object, "apiVersion"),
                         kind = json::string_member(object, "kind");
  if (api_version.empty() || kind.empty()) return;
  Kind& k = kinds_[std::string(api_version)][plural_of(kind)];
  k.kind = kind;
  const std::string namespace_name(json::string_at(object, "/metadata/namespace"));
  k.namespaced = k.namespaced || !namespace_name.empty();
  k.objects.push_back({namespace_name, std::string(json::string_at(object, "/metadata/name")), std::string(json_text)});
}

std::string FileApi::discovery(const std::string& group_version) const {
  json::JsonWriter w;
  w.begin_object().field("kind", "APIResourceList").field("groupVersion", group_version);
  w.key("resources").begin_array();
  for (const auto& [plural, kind] : kinds_.at(group_version)) {
    w.begin_object().field("name", plural).field("kind", kind.kind).field("namespaced", kind.namespaced);
    w.key("verbs").begin_array().value("get").value("list").end_array().end_object();
  }
  return w.end_array().end_object().take();
}

kube::Response FileApi::send(std::string_view method, const std::string& target, const std::string&, std::string_view,
                             std::chrono::milliseconds) {
  if (method != "GET") return {405, R"({"kind":"Status","code":405,"message":"the files are read only"})", {}};
  std::vector<std::string> parts = segments_of(target.substr(0, target.find('?')));
  // /api/v1/... or /apis/GROUP/VERSION/...
  const size_t version_at = !parts.empty() && parts[0] == "api" ? 1 : 2;
  if (parts.size() <= version_at || (parts[0] != "api" && parts[0] != "apis")) return not_found(target);
  const std::string group_version = version_at == 1 ? parts[1] : parts[1] + "/" + parts[2];
  if (!kinds_.count(group_version)) return not_found(group_version);
  if (parts.size() == version_at + 1) return {200, discovery(group_version), {}};
  std::vector<std::string> rest(parts.begin() + static_cast<long>(version_at) + 1, parts.end());
  std::string namespace_name;
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    namespace_name = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  auto kind = kinds_.at(group_version).find(rest[0]);
  if (kind == kinds_.at(group_version).end() || rest.size() > 2) return not_found(target);
  if (rest.size() == 2) {
    for (const auto& o : kind->second.objects)
      if (o.name == rest[1] && o.namespace_name == namespace_name) return {200, o.json, {}};
    return not_found(kind->first + " " + rest[1]);
  }
  std::string body = R"({"kind":"List","metadata":{"resourceVersion":"1"},"items":[)";
  bool first = true;
  for (const auto& o : kind->second.objects)
    if (namespace_name.empty() || o.namespace_name == namespace_name) {
      body += (first ? "" : ",") + o.json;
      first = false;
    }
  return {200, body + "]}", {}};
}

kube::Response FileApi::open_stream(const std::string&, const std::function<bool(std::string_view)>&,
                                    std::chrono::milliseconds, const std::atomic<bool>*, const std::function<void()>&) {
  return {405, R"({"kind":"Status","code":405,"message":"files are not watched"})", {}};
}

}  // namespace wm::cli
