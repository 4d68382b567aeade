#include "tests/unit/controllers/controller_fixtures.h"

#include <catch2/catch.hpp>

#include "base/json/json_patch.h"
#include "base/json/json_writer.h"
#include "mapper/expr/json_patch_apply.h"
#include "policy/keys.h"
#include "tests/support/test_support.h"

namespace wm::test {

std::unique_ptr<policy::StateStore> state_with_policy(const std::string& policy_text, const std::string& file_name) {
  auto store = std::make_unique<policy::StateStore>(policy::StateSources{write_temp(file_name, policy_text), {}});
  REQUIRE(store->load().empty());
  return store;
}

std::string admitted_workload(const std::string& corpus_path, const std::string& profile,
                              const std::string& namespace_name, const std::string& uid, const std::string& queue) {
  auto objects = parse_file(corpus_dir() + "/" + corpus_path);
  REQUIRE(!objects.empty());
  json::JsonPatchBuilder patch(objects.front().root);
  REQUIRE(patch.set_string("/metadata/namespace", namespace_name));
  REQUIRE(patch.set_string("/metadata/uid", uid));
  REQUIRE(patch.merge_map("/metadata/labels", {{std::string(kProfileLabel), profile}}));
  REQUIRE(patch.merge_map("/metadata/annotations", {{std::string(kQueueAnnotation), queue}}));
  auto patched = expr::apply_json_patch(json::element_json(objects.front().root), patch.str());
  REQUIRE(patched);
  return *patched;
}

}  // namespace wm::test
