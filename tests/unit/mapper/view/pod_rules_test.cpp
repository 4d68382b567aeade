// The API server's rules for a pod's container resources (mapper/view/pod_rules.h), each with the message Kubernetes'
// own validation gives (pkg/apis/core/validation validateResourceRequirements).
#include "mapper/view/pod_rules.h"

#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace wm;

namespace {

std::vector<std::string> breaches(const std::string& resources, const std::string& list = "containers") {
  auto spec = test::parse_json(R"({")" + list + R"(":[{"name":"main","image":"x","resources":)" + resources + "}]}");
  return view::pod_resource_breaches(spec.root);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

}  // namespace

TEST_CASE("pod rules: extended resources are whole numbers, with a limit, and requested at the limit") {
  CHECK(joined(breaches(R"({"requests":{"nvidia.com/gpu":1}})")) ==
        "container main: resources.requests[nvidia.com/gpu] 1: Limit must be set for non overcommitable resources\n");
  CHECK(joined(breaches(R"({"limits":{"nvidia.com/gpu":"500m"}})")) ==
        "container main: resources.limits[nvidia.com/gpu] \"500m\": must be an integer\n");
  CHECK(joined(breaches(R"({"limits":{"nvidia.com/gpu":4},"requests":{"nvidia.com/gpu":2}})")) ==
        "container main: resources.requests[nvidia.com/gpu] 2: must be equal to nvidia.com/gpu limit of 4\n");
  // Limits alone are what every GPU example writes: the request defaults to the limit.
  CHECK(breaches(R"({"limits":{"nvidia.com/gpu":8,"cpu":"8","memory":"64Gi"}})").empty());
  CHECK(breaches(R"({"limits":{"nvidia.com/gpu":"2"},"requests":{"nvidia.com/gpu":"2000m"}})").empty());
}

TEST_CASE("pod rules: a request is at most its limit, and cpu and memory may be requested below it or without one") {
  CHECK(joined(breaches(R"({"limits":{"cpu":"1"},"requests":{"cpu":"1500m"}})")) ==
        "container main: resources.requests[cpu] \"1500m\": must be less than or equal to cpu limit of \"1\"\n");
  CHECK(breaches(R"({"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"500m","memory":"512Mi"}})").empty());
  CHECK(breaches(R"({"requests":{"cpu":"100m","memory":"1Gi","ephemeral-storage":"1Gi"}})").empty());
  CHECK(joined(breaches(R"({"requests":{"memory":"-1"}})", "initContainers")) ==
        "init container main: resources.requests[memory] \"-1\": must be greater than or equal to 0\n");
  // A quantity that is none makes the whole view a problem already (mapper/view/resources.cpp); here, where a rule
  // needs it.
  CHECK(joined(breaches(R"({"limits":{"cpu":"2"},"requests":{"cpu":"lots"}})")) ==
        "container main: resources.requests[cpu] \"lots\": is not a quantity\n");
}

TEST_CASE("pod rules: hugepages come in whole pages, at their limit, beside cpu or memory") {
  CHECK(breaches(R"({"limits":{"hugepages-2Mi":"4Mi","memory":"1Gi"},"requests":{"hugepages-2Mi":"4Mi"}})").empty());
  CHECK(joined(breaches(R"({"limits":{"hugepages-2Mi":"3Mi","memory":"1Gi"}})")) ==
        "container main: resources.limits[hugepages-2Mi] \"3Mi\": is not positive integer multiple of hugepages-2Mi\n");
  CHECK(joined(breaches(R"({"limits":{"hugepages-1Gi":"2Gi"}})")) ==
        "container main: resources: HugePages require cpu or memory\n");
}

TEST_CASE("pod rules: resource names as the API server takes them for containers") {
  CHECK(joined(breaches(R"({"limits":{"gpu":1}})")) ==
        "container main: resources.limits[gpu]: must be a standard resource for containers\n");
  CHECK(joined(breaches(R"({"limits":{"Example.COM/gpu":1}})")) ==
        "container main: resources.limits[Example.COM/gpu]: is not a qualified resource name\n");
  CHECK(breaches(R"({"limits":{"amd.com/gpu":1,"example.kubernetes.io/thing":"500m"}})").empty());
}
