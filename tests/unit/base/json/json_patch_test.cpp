#include "base/json/json_patch.h"

#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace wm;

TEST_CASE("existing members are replaced, missing ones added, no-ops skipped") {
  auto o = test::parse_json(R"({"spec":{"schedulerName":"default-scheduler","priorityClassName":"high"}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.set_string("/spec/schedulerName", "kai-scheduler"));
  REQUIRE(patch.set_string("/spec/priorityClassName", "high"));  // already so
  REQUIRE(patch.set_string("/spec/nodeName", "n1"));
  CHECK(
      patch.str() ==
      R"([{"op":"replace","path":"/spec/schedulerName","value":"kai-scheduler"},{"op":"add","path":"/spec/nodeName","value":"n1"}])");
}

TEST_CASE("a missing map is added whole, never patched into a path that does not exist") {
  auto o = test::parse_json(R"({"spec":{"template":{"spec":{}}}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.merge_map("/spec/template/metadata/labels", {{"a", "1"}, {"team.io/queue", "q"}}));
  REQUIRE(patch.merge_map("/spec/template/metadata/annotations", {{"x", "y"}}));
  CHECK(
      patch.str() ==
      R"([{"op":"add","path":"/spec/template/metadata","value":{"labels":{"a":"1","team.io/queue":"q"},"annotations":{"x":"y"}}}])");
}

TEST_CASE("keys are escaped with ~0 and ~1") {
  auto o = test::parse_json(R"({"metadata":{"labels":{"keep":"me"}}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.merge_map("/metadata/labels", {{"scheduling.x-k8s.io/pod-group", "g"}, {"a~b", "c"}, {"keep", "me"}}));
  CHECK(
      patch.str() ==
      R"([{"op":"add","path":"/metadata/labels/scheduling.x-k8s.io~1pod-group","value":"g"},{"op":"add","path":"/metadata/labels/a~0b","value":"c"}])");
}

TEST_CASE("a null member is replaced, not added under") {
  auto o = test::parse_json(R"({"metadata":{"labels":null}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.merge_map("/metadata/labels", {{"a", "b"}}));
  CHECK(patch.str() == R"([{"op":"replace","path":"/metadata/labels","value":{"a":"b"}}])");
}

TEST_CASE("nothing to do gives an empty patch") {
  auto o = test::parse_json(R"({"metadata":{"labels":{"a":"b"}}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.merge_map("/metadata/labels", {{"a", "b"}}));
  CHECK(patch.empty());
  CHECK(patch.str() == "[]");
}

TEST_CASE("a field under a scalar cannot be set") {
  auto o = test::parse_json(R"({"spec":"oops"})");
  json::JsonPatchBuilder patch(o.root);
  const auto done = patch.set_string("/spec/schedulerName", "x");
  CHECK_FALSE(done);
  CHECK_THAT(done.error(), Catch::Contains("not an object"));
}

TEST_CASE("a path through a list item and an escaped key is walked as written") {
  auto o = test::parse_json(R"({"spec":{"jobs":[{"a/b":{"template":{"metadata":{}}}}]}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.merge_map("/spec/jobs/0/a~1b/template/metadata/labels", {{"q", "1"}}));
  REQUIRE(patch.set_string("/spec/jobs/0/a~1b/template/metadata/name", "n"));
  const auto missing_item = patch.set_string("/spec/jobs/1/template", "x");
  CHECK(!missing_item);
  CHECK(missing_item.error() == "cannot create /spec/jobs/1/template: /spec/jobs is a list without that item");
  CHECK(!patch.set_string("/spec/jobs/x/template", "x"));
  CHECK(
      patch.str() ==
      R"([{"op":"add","path":"/spec/jobs/0/a~1b/template/metadata/labels","value":{"q":"1"}},{"op":"add","path":"/spec/jobs/0/a~1b/template/metadata/name","value":"n"}])");
}

TEST_CASE("values that already hold the same JSON are left alone, whatever their type") {
  auto o = test::parse_json(R"({"spec":{"n":3,"s":"x\"y","o":{"a":[1,2]}}})");
  json::JsonPatchBuilder patch(o.root);
  REQUIRE(patch.set("/spec/n", "3"));
  REQUIRE(patch.set_string("/spec/s", "x\"y"));
  REQUIRE(patch.set("/spec/o", R"({"a":[1,2]})"));
  CHECK(patch.empty());
  REQUIRE(patch.set("/spec/n", "4"));
  CHECK(patch.str() == R"([{"op":"replace","path":"/spec/n","value":4}])");
}
