// A collection read whole, a page at a time (limit 500 and continue tokens, as kubectl's and client-go's pagers read):
// what a one-shot reader (the `get` and `describe` commands) takes, where a controller keeps a Reflector instead.
#pragma once

#include <simdjson.h>

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

// Every object at `path` (a collection), with `query` ("labelSelector=..." or ""). A failed page ends the read: what
// came before it is kept, and `error` says what failed.
Listed list_all(Api& api, const std::string& path, const std::string& query = {});
// A list item as a whole object: minified, without metadata.managedFields (kube/trim.h), apiVersion and kind first.
std::string typed_item(simdjson::dom::element item, std::string_view api_version, std::string_view kind);

}  // namespace wm::kube
