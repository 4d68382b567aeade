#include "policy/owners.h"

#include "base/json/json_read.h"

namespace wm::policy {

Owners owners_of(simdjson::dom::element object) {
  Owners out;
  simdjson::dom::array owners;
  if (object["metadata"]["ownerReferences"].get_array().get(owners) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element owner : owners) {
    const std::string_view api_version = json::string_member(owner, "apiVersion"),
                           kind = json::string_member(owner, "kind");
    if (kind == "Pod" && api_version == "v1") out.pod = true;
    bool controller = false;
    if (!out.controller && owner["controller"].get_bool().get(controller) == simdjson::SUCCESS && controller)
      out.controller = Controller{api_version, kind};
  }
  return out;
}

}  // namespace wm::policy
