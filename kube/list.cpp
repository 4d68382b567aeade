#include "kube/list.h"

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "kube/trim.h"

namespace wm::kube {

ListFailure for_each_page(Api& api, const std::string& path, const std::string& query,
                          const std::function<bool(std::unique_ptr<simdjson::dom::document>& page)>& page) {
  simdjson::dom::parser parser;
  std::string continue_token;
  do {
    std::string target = path + "?" + (query.empty() ? "" : query + "&") + "limit=500";
    if (!continue_token.empty()) target += "&continue=" + url_encode(continue_token);
    Response r = api.request("GET", target, {}, kJson, std::chrono::seconds(60));
    if (!r.ok()) return {r.status, "list " + path + ": " + r.describe()};
    auto document = std::make_unique<simdjson::dom::document>();
    simdjson::dom::element list;
    if (parser.parse_into_document(*document, r.body).get(list) != simdjson::SUCCESS)
      return {r.status, "list " + path + ": the response is not JSON"};
    continue_token = std::string(json::string_at(list, "/metadata/continue"));
    if (!page(document)) break;
  } while (!continue_token.empty());
  return {};
}

Listed list_all(Api& api, const std::string& path, const std::string& query) {
  Listed out;
  const ListFailure failed = for_each_page(api, path, query, [&](std::unique_ptr<simdjson::dom::document>& page) {
    simdjson::dom::array items;
    if (page->root()["items"].get_array().get(items) == simdjson::SUCCESS)
      for (simdjson::dom::element item : items) out.items.push_back(item);
    out.pages.push_back(std::move(page));
    return true;
  });
  out.status = failed.status;
  out.error = failed.error;
  return out;
}

std::string typed_item(simdjson::dom::element item, std::string_view api_version, std::string_view kind) {
  std::string body = without_managed_fields(item);
  if (!json::string_member(item, "kind").empty()) return body;
  std::string out = "{\"apiVersion\":" + json::json_string(api_version) + ",\"kind\":" + json::json_string(kind);
  return out + (body.size() > 2 ? "," : "") + body.substr(1);
}

}  // namespace wm::kube
