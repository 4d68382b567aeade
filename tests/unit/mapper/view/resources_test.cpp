#include "mapper/view/resources.h"

#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace wm;

static view::ResourceList requests_of(const std::string& pod_spec) {
  auto o = test::parse_json(pod_spec);
  std::vector<std::string> warnings;
  view::ResourceList r = view::pod_requests(o.root, warnings);
  CHECK(warnings.empty());
  return r;
}

TEST_CASE("container requests add up and default to limits") {
  auto r = requests_of(R"({"containers":[
      {"resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"1","nvidia.com/gpu":4}}},
      {"resources":{"requests":{"cpu":"250m","memory":"1Gi"}}}]})");
  CHECK(r["cpu"].str() == "750m");
  CHECK(r["memory"].str(true) == "1Gi");
  CHECK(r["nvidia.com/gpu"].units_ceil() == 4);
}

TEST_CASE("the largest init container wins when it exceeds the app containers") {
  auto r = requests_of(R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],
      "initContainers":[{"resources":{"requests":{"cpu":"2","memory":"64Mi"}}},{"resources":{"requests":{"cpu":"500m"}}}]})");
  CHECK(r["cpu"].str() == "2");
  CHECK(r["memory"].str(true) == "64Mi");
}

TEST_CASE("sidecars (restartPolicy Always) run beside the app and later init containers") {
  auto r = requests_of(R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],
      "initContainers":[{"restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}},
                        {"resources":{"requests":{"cpu":"1200m"}}}]})");
  // max(1 + 0.5, 1.2 + 0.5) = 1.7
  CHECK(r["cpu"].str() == "1700m");
}

TEST_CASE("pod overhead is added") {
  auto r = requests_of(R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"overhead":{"cpu":"250m"}})");
  CHECK(r["cpu"].str() == "1250m");
}

TEST_CASE("an invalid quantity is reported, not counted") {
  auto o = test::parse_json(R"({"containers":[{"resources":{"requests":{"cpu":"lots"}}}]})");
  std::vector<std::string> warnings;
  auto r = view::pod_requests(o.root, warnings);
  CHECK(r.count("cpu") == 0);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("cpu"));
}
