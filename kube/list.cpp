#include "kube/list.h"

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "kube/trim.h"

namespace wm::kube {

Listed list_all(Api& api, const std::string& path, const std::string& query) {
  Listed out;
  simdjson::dom::parser parser;
  std::string continue_token;
  do {
    std::string target = path + "?limit=500" + (query.empty() ? "" : "&" + query);
    if (!continue_token.empty()) target += "&continue=" + url_encode(continue_token);
    Response r = api.request("GET", target, {}, kJson, std::chrono::seconds(60));
    if (!r.ok()) {
      out.status = r.status;
      out.error = "list " + path + ": " + r.describe();
      return out;
    }
    auto page = std::make_unique<simdjson::dom::document>();
    simdjson::dom::element list;
    if (parser.parse_into_document(*page, r.body).get(list) != simdjson::SUCCESS) {
      out.error = "list " + path + ": the response is not JSON";
      return out;
    }
    simdjson::dom::array items;
    if (list["items"].get_array().get(items) == simdjson::SUCCESS)
      for (simdjson::dom::element item : items) out.items.push_back(item);
    continue_token = std::string(json::string_at(list, "/metadata/continue"));
    out.pages.push_back(std::move(page));
  } while (!continue_token.empty());
  return out;
}

std::string typed_item(simdjson::dom::element item, std::string_view api_version, std::string_view kind) {
  std::string body = without_managed_fields(item);
  if (!json::string_member(item, "kind").empty()) return body;
  std::string out = "{\"apiVersion\":" + json::json_string(api_version) + ",\"kind\":" + json::json_string(kind);
  return out + (body.size() > 2 ? "," : "") + body.substr(1);
}

}  // namespace wm::kube
