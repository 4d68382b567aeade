// The PodGroups a previous leader made, as a watch of a fake API server shows them: unknown until listed, then by
// owner uid, following creations, deletions and relabelling.
#include "controllers/owned_pod_groups.h"

#include <catch2/catch.hpp>
#include <thread>

#include "controllers/pod_group_plan.h"
#include "tests/support/fake_api.h"

namespace wm::controllers {

namespace {

std::string pod_group(const std::string& name, const std::string& owner) {
  return R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":")" + name +
         R"(","namespace":"team-a","labels":{"workload-map.io/owner-uid":")" + owner + R"("}}})";
}

// What `of` says once the watch has caught up with `expected` (or after 10 s).
std::optional<std::set<OwnedPodGroups::Where>> settled(OwnedPodGroups& owned, const kube::Resource& resource,
                                                       const std::string& uid, size_t expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::optional<std::set<OwnedPodGroups::Where>> found;
  while (std::chrono::steady_clock::now() < deadline) {
    found = owned.of(resource, uid);
    if (found && found->size() == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return found;
}

}  // namespace

TEST_CASE("Owned PodGroups: unknown until the watch lists, then each workload's own, as the watch changes them") {
  test::FakeApi api;
  const kube::Resource podgroups{"scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", true};
  const std::string collection = "/apis/scheduling.volcano.sh/v1beta1/podgroups";
  api.answer("GET", collection, 200,
             R"({"metadata":{"resourceVersion":"5"},"items":[)" + pod_group("a-0", "uid-a") + "," +
                 pod_group("a-1", "uid-a") + "," + pod_group("b-0", "uid-b") + "]}");
  // After the list: b-1 is made for b, a-1 is deleted, and a-0 is relabelled to b.
  api.answer("WATCH", collection, 200,
             R"({"type":"ADDED","object":)" + pod_group("b-1", "uid-b") + "}\n" + R"({"type":"DELETED","object":)" +
                 pod_group("a-1", "uid-a") + "}\n" + R"({"type":"MODIFIED","object":)" + pod_group("a-0", "uid-b") +
                 "}\n");
  OwnedPodGroups owned(api, std::string(kOwnerUidLabel));
  CHECK_FALSE(owned.of(podgroups, "uid-a"));  // the first ask starts the watch; nothing is known yet
  const auto b = settled(owned, podgroups, "uid-b", 3);
  REQUIRE(b);
  const std::string in_team_a = "/apis/scheduling.volcano.sh/v1beta1/namespaces/team-a/podgroups";
  CHECK(*b == std::set<OwnedPodGroups::Where>{{in_team_a, "a-0"}, {in_team_a, "b-0"}, {in_team_a, "b-1"}});
  CHECK(owned.of(podgroups, "uid-a")->empty());
  // Only the PodGroups this controller labels are listed and watched.
  const auto lists = api.calls("GET", collection);
  REQUIRE(!lists.empty());
  CHECK(lists[0].target.find("labelSelector=workload-map.io%2Fowner-uid") != std::string::npos);
}

}  // namespace wm::controllers
