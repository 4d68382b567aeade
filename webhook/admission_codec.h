// The AdmissionReview v1 wire format, as controller-runtime's admission package has it: a request decoded into views
// of the parser's DOM, and a Decision encoded as the response. No policy, no workload type.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace wm::webhook {

// A decoded request; its views and elements live as long as the parser's document.
struct AdmissionRequest {
  std::string_view uid, operation, namespace_name, api_version, kind, group;
  simdjson::dom::element object, old_object;
  bool has_object = false, has_old_object = false;
};

// The request in `body`; fails with the reason it is not an AdmissionReview v1 request (an HTTP 400).
Result<AdmissionRequest> decode_review(std::string_view body, simdjson::dom::parser& parser);

// What admission answers: allowed (with a patch or not) or denied with an HTTP code and why, and warnings either way.
struct Decision {
  bool is_allowed = true;
  int code = 0;
  std::string message;  // why it is denied
  std::string patch;    // an RFC 6902 patch; empty for none
  std::vector<std::string> warnings;

  static Decision allowed() { return {}; }
  static Decision denied(int code, std::string why) { return {false, code, std::move(why), {}, {}}; }
  Decision&& with_patch(std::string p) && {
    patch = std::move(p);
    return std::move(*this);
  }
  Decision&& with_warnings(std::vector<std::string> w) && {
    warnings = std::move(w);
    return std::move(*this);
  }
};

// The AdmissionReview response for request `uid`: the patch base64-encoded, each warning cut at the API server's 500
// bytes on a UTF-8 character boundary.
std::string encode_response(std::string_view uid, const Decision& decision);

// At most `bytes` bytes of `text`, never cutting a UTF-8 character in two (an invalid string would fail the review).
std::string_view utf8_prefix(std::string_view text, size_t bytes);

}  // namespace wm::webhook
