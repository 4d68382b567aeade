#include <iostream>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "cli/admission_request.h"
#include "cli/commands.h"
#include "mapper/catalog/documents.h"

namespace wm::cli {

std::optional<std::string> first_object_json(const std::string& file, const catalog::Catalog* workloads) {
  yaml::Diagnostics errors;
  auto docs = catalog::read_document_file(file, errors);
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty() || docs.empty()) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  for (const auto& doc : docs)  // the objects before it are what it refers to (a ResourceClaimTemplate)
    if (workloads && parser.parse(doc.json).get(object) == simdjson::SUCCESS) {
      const auto match =
          workloads->find(json::string_member(object, "apiVersion"), json::string_member(object, "kind"));
      if (match.definition || !match.uncovered_version_of.empty()) return doc.json;
    }
  return docs.front().json;
}

std::optional<std::string> admission_review_json(const ReviewRequestOptions& o, const std::string& object_json) {
  const std::string &file = o.file, &operation = o.operation, &uid = o.uid;
  std::string namespace_name = o.namespace_name;
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(object_json).get(object) || !object.is_object()) {
    std::cerr << file << ": not a JSON object\n";
    return std::nullopt;
  }
  std::string_view api, kind, ns;
  if (object["apiVersion"].get(api) || object["kind"].get(kind)) {
    std::cerr << file << ": the object has no apiVersion or kind\n";
    return std::nullopt;
  }
  if (namespace_name.empty() && !object.at_pointer("/metadata/namespace").get(ns)) namespace_name = ns;
  if (namespace_name.empty()) namespace_name = "default";
  const auto [group, version] = json::split_api_version(api);
  std::string out = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":)" +
                    json::json_string(uid) + R"(,"kind":{"group":)" + json::json_string(group) + R"(,"version":)" +
                    json::json_string(version) + R"(,"kind":)" + json::json_string(kind) + R"(},"namespace":)" +
                    json::json_string(namespace_name) + R"(,"operation":)" + json::json_string(operation) +
                    R"(,"userInfo":{"username":"kubernetes-admin"},"dryRun":false)";
  if (operation != "DELETE") out += R"(,"object":)" + object_json;
  if (operation != "CREATE") out += R"(,"oldObject":)" + object_json;
  return out + "}}";
}

namespace {

int review_request(const ReviewRequestOptions& o) {
  auto object = first_object_json(o.file);
  auto review = object ? admission_review_json(o, *object) : std::nullopt;
  if (!review) return kInvalid;
  std::cout << *review << "\n";
  return kOk;
}

}  // namespace

void add_request_options(CLI::App& command, ReviewRequestOptions& o) {
  command.add_option("FILE", o.file, "a manifest")->required();
  command.add_option("--operation", o.operation, "CREATE (default), UPDATE or DELETE")
      ->check(CLI::IsMember({"CREATE", "UPDATE", "DELETE"}));
  command.add_option("--namespace", o.namespace_name, "default: the object's, else default");
  command.add_option("--uid", o.uid, "the request's uid");
}

void add_review_request(CLI::App& app, int& status) {
  auto o = std::make_shared<ReviewRequestOptions>();
  CLI::App* command = app.add_subcommand(
      "review-request", "print the AdmissionReview the API server would send for the first object of FILE");
  add_request_options(*command, *o);
  command->callback([o, &status] { status = review_request(*o); });
}

}  // namespace wm::cli
