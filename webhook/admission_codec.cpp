#include "webhook/admission_codec.h"

#include <boost/beast/core/detail/base64.hpp>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "base/json/parser_capacity.h"

namespace wm::webhook {

Result<AdmissionRequest> decode_review(std::string_view body, simdjson::dom::parser& parser) {
  AdmissionRequest req;
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  if (auto error = json::allow_max_depth(parser, body.size()))
    return Error{std::string("the body cannot be read: ") + simdjson::error_message(error)};
  // parse() copies strings into the parser's buffers, so `padded` may go; the DOM stays valid until the
  // parser's next parse.
  if (auto error = parser.parse(padded).get(root))
    return Error{std::string("the body is not JSON: ") + simdjson::error_message(error)};
  if (!root.is_object()) return Error{"the body is not an AdmissionReview object"};
  std::string_view api_version = json::string_member(root, "apiVersion"), kind = json::string_member(root, "kind");
  if (api_version != "admission.k8s.io/v1")
    return Error{"apiVersion must be admission.k8s.io/v1, not \"" + std::string(api_version) +
                 "\" (set admissionReviewVersions: [v1])"};
  if (kind != "AdmissionReview") return Error{"kind must be AdmissionReview"};
  simdjson::dom::element request;
  if (root["request"].get(request) || !request.is_object()) return Error{"the AdmissionReview has no request"};
  req.uid = json::string_member(request, "uid");
  if (req.uid.empty()) return Error{"request.uid is missing"};
  req.operation = json::string_member(request, "operation");
  if (req.operation.empty()) return Error{"request.operation is missing"};
  req.namespace_name = json::string_member(request, "namespace");
  simdjson::dom::element object;
  req.has_object = !request["object"].get(object) && object.is_object();
  simdjson::dom::element old_object;
  req.has_old_object = req.operation == "UPDATE" && !request["oldObject"].get(old_object) && old_object.is_object();
  if (req.has_old_object) req.old_object = old_object;
  if (req.has_object) {
    req.object = object;
    req.api_version = json::string_member(object, "apiVersion");
    req.kind = json::string_member(object, "kind");
  }
  if ((req.operation == "CREATE" || req.operation == "UPDATE") && !req.has_object)
    return Error{"request.object is missing for a " + std::string(req.operation)};
  if (req.has_object && (req.api_version.empty() || req.kind.empty()))
    return Error{"request.object has no apiVersion or kind"};
  req.group = json::split_api_version(req.api_version).first;
  return req;
}

std::string_view utf8_prefix(std::string_view text, size_t bytes) {
  if (text.size() <= bytes) return text;
  size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // back to a lead byte
  return text.substr(0, end);
}

std::string encode_response(std::string_view uid, const Decision& decision) {
  const std::string& patch = decision.patch;
  const std::string denial = decision.is_allowed ? std::string() : decision.message;
  const int code = decision.code;
  const std::vector<std::string>& warnings = decision.warnings;
  std::string out;
  out.reserve(160 + uid.size() + denial.size() + patch.size() * 4 / 3);
  out += R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":)";
  json::append_json_string(out, uid);
  out += denial.empty() ? R"(,"allowed":true)" : R"(,"allowed":false)";
  if (!denial.empty()) {
    out += R"(,"status":{"code":)" + std::to_string(code) + R"(,"message":)";
    json::append_json_string(out, denial);
    out += "}";
  }
  if (!patch.empty()) {
    out += R"(,"patchType":"JSONPatch","patch":")";
    const size_t at = out.size();
    out.resize(at + boost::beast::detail::base64::encoded_size(patch.size()));
    out.resize(at + boost::beast::detail::base64::encode(out.data() + at, patch.data(), patch.size()));
    out += '"';
  }
  if (!warnings.empty()) {
    out += R"(,"warnings":[)";
    for (size_t i = 0; i < warnings.size(); ++i) {
      if (i) out += ',';
      json::append_json_string(out, utf8_prefix(warnings[i], 500));  // the API server caps warnings
    }
    out += "]";
  }
  return out + "}}";
}

}  // namespace wm::webhook
