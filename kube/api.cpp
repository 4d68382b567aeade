#include "kube/api.h"

#include <simdjson.h>

#include <cctype>

namespace wm::kube {

std::string Response::describe() const {
  if (status == 0) return error.empty() ? "no response" : error;
  std::string message;
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  std::string_view m;
  if (parser.parse(body).get(e) == simdjson::SUCCESS && e["message"].get_string().get(m) == simdjson::SUCCESS)
    message = std::string(m);
  else
    message = body.substr(0, 300);
  return "HTTP " + std::to_string(status) + (message.empty() ? "" : ": " + message);
}

Error Response::failure(std::string_view what) const {
  ErrorCode code = ErrorCode::Invalid;
  if (status == 0 || status == 429 || status >= 500)
    code = ErrorCode::Unavailable;
  else if (status == 404)
    code = ErrorCode::NotFound;
  else if (status == 409)
    code = ErrorCode::Conflict;
  return Error{std::string(what) + ": " + describe(), code};
}

Error Response::failure_to_retry(std::string_view what) const {
  Error error = failure(what);
  if (!retryable(error.code)) error.code = ErrorCode::Unavailable;
  return error;
}

std::string url_encode(std::string_view value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

}  // namespace wm::kube
