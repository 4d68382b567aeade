// The topology domains of a cluster's Nodes: what of a node counts, the largest domain per label key and resource, and
// what a gang's minimum asks beyond it.
#include "mapper/view/node_domains.h"

#include <catch2/catch.hpp>

namespace wm::view {
namespace {

const std::vector<std::string> kKeys = {"example.com/block", "example.com/rack"};

std::optional<NodeRoom> room(const std::string& node_json) {
  simdjson::dom::parser parser;
  return node_room(parser.parse(node_json).value(), kKeys);
}

std::string node(const std::string& labels, const std::string& allocatable, bool cordoned = false) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{)" + labels + R"(}},"spec":{)" +
         (cordoned ? R"("unschedulable":true)" : "") + R"(},"status":{"allocatable":{)" + allocatable + "}}}";
}

TEST_CASE("node domains: only the asked keys and the allocatable of a schedulable node count") {
  auto r = room(node(R"("example.com/rack":"r1","kubernetes.io/hostname":"n","example.com/block":"b1")",
                     R"("nvidia.com/gpu":"8","memory":"1Ti","cpu":"63500m")"));
  REQUIRE(r);
  CHECK(r->labels ==
        std::vector<std::pair<std::string, std::string>>{{"example.com/block", "b1"}, {"example.com/rack", "r1"}});
  CHECK(r->allocatable.at("nvidia.com/gpu") == Quantity::units(8));
  CHECK(r->allocatable.at("cpu") == *Quantity::parse("63500m"));
  CHECK_FALSE(room(node(R"("example.com/rack":"r1")", R"("nvidia.com/gpu":"8")", true)));
  CHECK_FALSE(room(R"({"kind":"Pod","metadata":{"name":"p"}})"));
  CHECK(room(R"({"kind":"Node","metadata":{"name":"bare"}})")->labels.empty());
}

TEST_CASE("node domains: the largest domain of each key and resource, and a gang's shortfall against it") {
  std::map<std::string, NodeRoom, std::less<>> nodes;
  auto add = [&](const std::string& name, const std::string& rack, const std::string& gpus) {
    nodes.emplace(name, *room(node(R"("example.com/rack":")" + rack + R"(","example.com/block":"b1")",
                                   R"("nvidia.com/gpu":")" + gpus + R"(","memory":"512Gi")")));
  };
  add("a1", "rack-a", "8");
  add("a2", "rack-a", "8");
  add("b1", "rack-b", "4");
  add("b2", "rack-b", "4");
  add("b3", "rack-b", "4");
  const NodeDomains domains(nodes, kKeys);
  CHECK(domains.knows("example.com/rack"));
  CHECK_FALSE(domains.knows("nvidia.com/gpu.clique"));
  CHECK(domains.carries("example.com/block"));
  const LargestDomain* gpus = domains.largest("example.com/rack", "nvidia.com/gpu");
  REQUIRE(gpus);
  CHECK(gpus->value == "rack-a");  // 16 over rack-b's 12
  CHECK(gpus->nodes == 2);
  CHECK(domains.largest("example.com/rack", "memory")->value == "rack-b");  // 1536Gi over 1Ti
  CHECK(domains.largest("example.com/block", "nvidia.com/gpu")->room == Quantity::units(28));
  CHECK_FALSE(domains.largest("example.com/rack", "example.com/fpga"));

  const ResourceList gang{{"nvidia.com/gpu", Quantity::units(20)},
                          {"memory", *Quantity::parse("2Ti")},
                          {"example.com/fpga", Quantity::units(2)}};
  CHECK(
      domain_shortfalls(domains, "example.com/rack", gang) ==
      std::vector<std::string>{
          "2Ti memory inside one example.com/rack, and the largest (example.com/rack=rack-b, 3 nodes) has 1536Gi",
          "20 nvidia.com/gpu inside one example.com/rack, and the largest (example.com/rack=rack-a, 2 nodes) has 16"});
  CHECK(domain_shortfalls(domains, "example.com/block", gang).empty());
  CHECK(domain_shortfalls(domains, "example.com/zone", gang).empty());

  // A key asked about that no node carries.
  const NodeDomains unlabelled(nodes, {"nvidia.com/gpu.clique"});
  CHECK(unlabelled.knows("nvidia.com/gpu.clique"));
  CHECK_FALSE(unlabelled.carries("nvidia.com/gpu.clique"));
}

}  // namespace
}  // namespace wm::view
