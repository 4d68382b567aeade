// Devices through DRA claims (mapper/view/claims.h), each rule of kubernetes' resource.k8s.io/v1 and core/v1
// PodResourceClaim semantics on its own: per-pod templates, claims shared by name, counts and their defaults,
// adminAccess, v1beta1's inline fields, firstAvailable, allocationMode All, classes mapped, not counted, unmapped or
// named by their DeviceClass's extendedResourceName, and the implicit extended resource of a class.
#include "mapper/view/claims.h"

#include <catch2/catch.hpp>

#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

namespace wm {
namespace {

struct Claims {
  view::ReferenceStore store;
  view::DeviceClassMapping classes;
  std::vector<test::ParsedObject> keep;  // views point into their documents

  Claims() {
    classes.resources = {{"gpu.nvidia.com", "nvidia.com/gpu"},
                         {"mig.nvidia.com", "mig.nvidia.com"},
                         {"compute-domain-default-channel.nvidia.com", ""}};
  }
  // Holds a ResourceClaimTemplate (or, with `kind` ResourceClaim, a claim) of these requests in team-a.
  void hold(const std::string& name, const std::string& requests, const std::string& kind = "ResourceClaimTemplate",
            const std::string& version = "v1") {
    const std::string spec = R"({"devices":{"requests":)" + requests + "}}";
    REQUIRE(store.put(R"({"apiVersion":"resource.k8s.io/)" + version + R"(","kind":")" + kind +
                      R"(","metadata":{"name":")" + name + R"(","namespace":"team-a"},"spec":)" +
                      (kind == "ResourceClaim" ? spec : R"({"spec":)" + spec + "}") + "}"));
  }
  view::WorkloadView view(const std::string& yaml) {
    keep = test::parse_yaml(yaml);
    auto& object = keep.front();
    auto match = test::builtin_catalog().find(object.api_version, object.kind);
    REQUIRE(match.definition);
    return view::build_view(*match.definition, *object.doc,
                            {.catalog = &test::builtin_catalog(), .references = &store, .devices = &classes});
  }
};

// A Deployment of `replicas` pods whose pod spec holds `claims` (its resourceClaims) and a container with `limits`.
std::string deployment(int replicas, const std::string& claims, const std::string& limits = "{}") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: team-a}\nspec:\n  replicas: " +
         std::to_string(replicas) +
         "\n  template:\n    spec:\n      containers:\n      - name: c\n        resources: {limits: " + limits +
         "}\n      resourceClaims: " + claims + "\n";
}

long long count(const view::WorkloadView& view, const std::string& resource) {
  auto it = view.total_requests.find(resource);
  return it == view.total_requests.end() ? 0 : it->second.units_ceil();
}

const char* const kOneGpu = R"([{"name":"gpu","exactly":{"deviceClassName":"gpu.nvidia.com"}}])";

}  // namespace

TEST_CASE("Claims: a template's devices are each pod's own, one claim per entry that names it") {
  Claims c;
  c.hold("one-gpu", kOneGpu);
  auto view = c.view(deployment(4, "[{name: gpu, resourceClaimTemplateName: one-gpu}]"));
  CHECK(count(view, "nvidia.com/gpu") == 4);
  CHECK(view.components.front().instances.front().pod_requests.at("nvidia.com/gpu").units_ceil() == 1);
  CHECK(view.uncounted_devices.empty());
  CHECK(view.problems.empty());
  // Two entries naming one template are two claims for every pod.
  auto twice = c.view(
      deployment(3, "[{name: a, resourceClaimTemplateName: one-gpu}, {name: b, resourceClaimTemplateName: one-gpu}]"));
  CHECK(count(twice, "nvidia.com/gpu") == 6);
}

TEST_CASE("Claims: a claim named by resourceClaimName is counted once for the workload, however many pods share it") {
  Claims c;
  c.hold("shared", kOneGpu, "ResourceClaim");
  auto view = c.view(deployment(5, "[{name: gpu, resourceClaimName: shared}]"));
  CHECK(count(view, "nvidia.com/gpu") == 1);
  REQUIRE(view.shared_claims.count("team-a/shared"));
  CHECK(view.components.front().instances.front().pod_requests.count("nvidia.com/gpu") == 0);
  // Beside a per-pod template: 5 pods' own GPU and the shared one.
  c.hold("one-gpu", kOneGpu);
  auto both = c.view(
      deployment(5, "[{name: own, resourceClaimTemplateName: one-gpu}, {name: gpu, resourceClaimName: shared}]"));
  CHECK(count(both, "nvidia.com/gpu") == 6);
}

TEST_CASE("Claims: count defaults to 1, adminAccess allocates nothing, and v1beta1 writes the request inline") {
  Claims c;
  c.hold("three", R"([{"name":"gpus","exactly":{"deviceClassName":"gpu.nvidia.com","count":3}},)"
                  R"({"name":"watch","exactly":{"deviceClassName":"gpu.nvidia.com","adminAccess":true}}])");
  c.hold("inline", R"([{"name":"gpu","deviceClassName":"gpu.nvidia.com","count":2}])", "ResourceClaimTemplate",
         "v1beta1");
  CHECK(count(c.view(deployment(2, "[{name: g, resourceClaimTemplateName: three}]")), "nvidia.com/gpu") == 6);
  CHECK(count(c.view(deployment(2, "[{name: g, resourceClaimTemplateName: inline}]")), "nvidia.com/gpu") == 4);
}

TEST_CASE(
    "Claims: a class counts as its mapping, else its DeviceClass's extendedResourceName, and an unmapped one is said") {
  Claims c;
  c.hold("mig", R"([{"name":"a","exactly":{"deviceClassName":"mig.nvidia.com","count":2}}])");
  c.hold("channel", R"([{"name":"ch","exactly":{"deviceClassName":"compute-domain-default-channel.nvidia.com"}}])");
  c.hold("fpga", R"([{"name":"f","exactly":{"deviceClassName":"fpga.example.com"}}])");
  CHECK(count(c.view(deployment(2, "[{name: m, resourceClaimTemplateName: mig}]")), "mig.nvidia.com") == 4);
  auto channel = c.view(deployment(2, "[{name: c, resourceClaimTemplateName: channel}]"));
  CHECK(channel.total_requests.empty());  // mapped to nothing: no limit counts it, and nothing is said
  CHECK(channel.uncounted_devices.empty());

  auto fpga = c.view(deployment(2, "[{name: f, resourceClaimTemplateName: fpga}]"));
  CHECK(fpga.total_requests.empty());
  REQUIRE(fpga.uncounted_devices.size() == 1);
  CHECK(fpga.uncounted_devices[0].resources.empty());  // could be any resource
  CHECK_THAT(fpga.uncounted_devices[0].what,
             Catch::Contains("pod template deployment/deployment: claim f (ResourceClaimTemplate team-a/fpga): "
                             "DeviceClass fpga.example.com counts as no resource"));
  CHECK(fpga.problems.empty());  // the rest of the workload is understood

  // The DeviceClass itself names the resource (DRAExtendedResource): honoured where the policy says nothing.
  REQUIRE(
      c.store.put(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"fpga.example.com"},)"
                  R"("spec":{"extendedResourceName":"example.com/fpga"}})"));
  auto named = c.view(deployment(2, "[{name: f, resourceClaimTemplateName: fpga}]"));
  CHECK(count(named, "example.com/fpga") == 2);
  CHECK(named.uncounted_devices.empty());
}

TEST_CASE("Claims: allocationMode All and an unknown template are not counted, with the resource they could be") {
  Claims c;
  c.hold("all", R"([{"name":"g","exactly":{"deviceClassName":"gpu.nvidia.com","allocationMode":"All"}}])");
  auto all = c.view(deployment(1, "[{name: g, resourceClaimTemplateName: all}]"));
  REQUIRE(all.uncounted_devices.size() == 1);
  CHECK(all.uncounted_devices[0].resources == std::vector<std::string>{"nvidia.com/gpu"});
  CHECK_THAT(all.uncounted_devices[0].what, Catch::Contains("allocationMode All"));

  auto unknown = c.view(deployment(1, "[{name: g, resourceClaimTemplateName: later}]"));
  REQUIRE(unknown.uncounted_devices.size() == 1);
  CHECK(unknown.uncounted_devices[0].resources.empty());
  CHECK_THAT(unknown.uncounted_devices[0].what,
             Catch::Contains("ResourceClaimTemplate team-a/later): not known to workload-map yet"));
}

TEST_CASE("Claims: firstAvailable counts alternatives that agree, and otherwise only at their largest if told") {
  Claims c;
  c.hold("alike", R"([{"name":"g","firstAvailable":[{"name":"a","deviceClassName":"gpu.nvidia.com"},)"
                  R"({"name":"b","deviceClassName":"gpu.nvidia.com","selectors":[]}]}])");
  c.hold("differ", R"([{"name":"g","firstAvailable":[{"name":"big","deviceClassName":"gpu.nvidia.com","count":2},)"
                   R"({"name":"small","deviceClassName":"mig.nvidia.com","count":4}]}])");
  CHECK(count(c.view(deployment(3, "[{name: g, resourceClaimTemplateName: alike}]")), "nvidia.com/gpu") == 3);

  auto refused = c.view(deployment(3, "[{name: g, resourceClaimTemplateName: differ}]"));
  CHECK(refused.total_requests.empty());
  REQUIRE(refused.uncounted_devices.size() == 1);
  CHECK(refused.uncounted_devices[0].resources == std::vector<std::string>{"mig.nvidia.com", "nvidia.com/gpu"});

  c.classes.first_available_at_largest = true;
  auto largest = c.view(deployment(3, "[{name: g, resourceClaimTemplateName: differ}]"));
  CHECK(count(largest, "nvidia.com/gpu") == 6);
  CHECK(count(largest, "mig.nvidia.com") == 12);
  CHECK(largest.uncounted_devices.empty());
}

TEST_CASE("Claims: a container's implicit DRA extended resource counts as its class's resource") {
  Claims c;
  auto view = c.view(deployment(2, "[]", "{deviceclass.resource.kubernetes.io/gpu.nvidia.com: 2}"));
  CHECK(count(view, "nvidia.com/gpu") == 4);
  CHECK(view.total_requests.count("deviceclass.resource.kubernetes.io/gpu.nvidia.com") == 0);
  auto unmapped = c.view(deployment(1, "[]", "{deviceclass.resource.kubernetes.io/fpga.example.com: 1}"));
  REQUIRE(unmapped.uncounted_devices.size() == 1);
  CHECK(unmapped.uncounted_devices[0].resources.empty());
}

TEST_CASE("Claims: a template is looked up in the workload's own namespace only") {
  Claims c;
  c.hold("one-gpu", kOneGpu);
  std::string elsewhere = deployment(2, "[{name: gpu, resourceClaimTemplateName: one-gpu}]");
  elsewhere.replace(elsewhere.find("team-a"), 6, "team-b");
  auto view = c.view(elsewhere);
  CHECK(count(view, "nvidia.com/gpu") == 0);
  REQUIRE(view.uncounted_devices.size() == 1);
  CHECK_THAT(view.uncounted_devices[0].what, Catch::Contains("ResourceClaimTemplate team-b/one-gpu"));
}

}  // namespace wm
