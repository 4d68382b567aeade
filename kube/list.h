// A collection read whole, a page at a time (limit 500 and continue tokens, as kubectl's and client-go's pagers read):
// what a one-shot reader (the `get` and `describe` commands) takes, where a controller keeps a Reflector instead.
#pragma once

#include <simdjson.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/api.h"

namespace wm::kube {

struct Listed {
  // The pages, parsed once and kept: the items are elements of them. List items come without apiVersion and kind.
  std::vector<std::unique_ptr<simdjson::dom::document>> pages;
  std::vector<simdjson::dom::element> items;
  int status = 200;   // the first failed page's HTTP status (0: no answer); 403: the user may not list it
  std::string error;  // what failed, for a note; empty when every page came
  bool ok() const { return error.empty(); }
};

// The pages of the collection at `path`, with `query` ("labelSelector=..." or ""), each parsed into a document of its
// own and handed to `page` (which may keep it) until the last, or until `page` returns false. A failed page ends the
// read: `status` and `error` say what failed (error empty when none did). The one pager of `list_all` and Reflector.
struct ListFailure {
  int status = 200;
  std::string error;
};
ListFailure for_each_page(Api& api, const std::string& path, const std::string& query,
                          const std::function<bool(std::unique_ptr<simdjson::dom::document>& page)>& page);
// Every object at `path`. A failed page ends the read: what came before it is kept, and `error` says what failed.
Listed list_all(Api& api, const std::string& path, const std::string& query = {});
// A list item as a whole object: minified, without metadata.managedFields (kube/trim.h), apiVersion and kind first.
std::string typed_item(simdjson::dom::element item, std::string_view api_version, std::string_view kind);

}  // namespace wm::kube
