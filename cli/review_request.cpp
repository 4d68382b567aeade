#include <iostream>

#include "cli/commands.h"
#include "mapper/documents.h"
#include "mapper/json_writer.h"

namespace wm::cli {

// An AdmissionReview as the API server would send it for the first object of a manifest.
int review_request(const Args& args) {
  std::string file, operation = "CREATE", namespace_name, uid = "0d9f5d4e-7c59-4c1e-9a4b-1f2e3d4c5b6a";
  for (size_t i = 0; i < args.size(); ++i) {
    bool has_value = i + 1 < args.size();
    if (args[i] == "--operation" && has_value)
      operation = args[++i];
    else if (args[i] == "--namespace" && has_value)
      namespace_name = args[++i];
    else if (args[i] == "--uid" && has_value)
      uid = args[++i];
    else if (!args[i].empty() && args[i][0] != '-' && file.empty())
      file = args[i];
    else {
      std::cerr << "usage: workload-map review-request FILE [--operation CREATE|UPDATE|DELETE] [--namespace NS] "
                   "[--uid UID]\n";
      return kUsage;
    }
  }
  if (file.empty()) {
    std::cerr << "usage: workload-map review-request FILE\n";
    return kUsage;
  }
  Diagnostics errors;
  auto docs = read_document_file(file, errors);
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty() || docs.empty()) return kInvalid;
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(docs.front().json).get(object)) {
    std::cerr << file << ": not a JSON object\n";
    return kInvalid;
  }
  std::string_view api, kind, ns;
  if (object["apiVersion"].get(api) || object["kind"].get(kind)) {
    std::cerr << file << ": the object has no apiVersion or kind\n";
    return kInvalid;
  }
  if (namespace_name.empty() && !object.at_pointer("/metadata/namespace").get(ns)) namespace_name = ns;
  if (namespace_name.empty()) namespace_name = "default";
  auto slash = api.find('/');
  std::string group(slash == std::string_view::npos ? "" : api.substr(0, slash));
  std::string version(slash == std::string_view::npos ? api : api.substr(slash + 1));
  std::string out = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":)" +
                    json_string(uid) + R"(,"kind":{"group":)" + json_string(group) + R"(,"version":)" +
                    json_string(version) + R"(,"kind":)" + json_string(kind) + R"(},"namespace":)" +
                    json_string(namespace_name) + R"(,"operation":)" + json_string(operation) +
                    R"(,"userInfo":{"username":"kubernetes-admin"},"dryRun":false)";
  if (operation != "DELETE") out += R"(,"object":)" + docs.front().json;
  if (operation != "CREATE") out += R"(,"oldObject":)" + docs.front().json;
  std::cout << out << "}}\n";
  return kOk;
}

}  // namespace wm::cli
