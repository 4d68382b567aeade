// What the API server did not keep of a PodGroup workload-map wrote: said as JSON Pointers under /spec, so that the
// controller can put an Event on the workload (a field dropped by a feature gate never reaches the scheduler).
#include "controllers/dropped_fields.h"

#include <catch2/catch.hpp>

namespace wm::controllers {

TEST_CASE("dropped fields: what was sent under spec and is not stored, member by member") {
  const std::string sent =
      R"({"metadata":{"name":"train","labels":{"a":"b"}},"spec":{"schedulingPolicy":{"gang":{"minCount":3}},)"
      R"("schedulingConstraints":{"topology":[{"key":"example.com/rack"}]},"a/b":{"c~d":1}}})";
  // Kubernetes v1.37 without TopologyAwareWorkloadScheduling: the constraint is gone; the server's own additions and
  // metadata are not the question.
  const std::string without_gate =
      R"({"metadata":{"name":"train","uid":"u"},"spec":{"schedulingPolicy":{"gang":{"minCount":3}},"a/b":{}},)"
      R"("status":{}})";
  CHECK(dropped_fields(sent, without_gate) ==
        std::vector<std::string>{"/spec/schedulingConstraints", "/spec/a~1b/c~0d"});
  // All kept (a list compared as a whole, whatever the server did inside it): nothing.
  const std::string with_gate =
      R"({"spec":{"schedulingPolicy":{"gang":{"minCount":3},"extra":1},"schedulingConstraints":{"topology":[]},)"
      R"("a/b":{"c~d":2}}})";
  CHECK(dropped_fields(sent, with_gate).empty());
  // An answer that is not the object (a fake's "{}", a status): nothing is claimed.
  CHECK(dropped_fields(sent, "{}").empty());
  CHECK(dropped_fields(sent, "not json").empty());
  CHECK(dropped_fields("{}", without_gate).empty());
}

}  // namespace wm::controllers
