// What the API server did not keep of an object workload-map wrote: a field its version or feature gates do not
// serve (a PodGroup's spec.schedulingConstraints without TopologyAwareWorkloadScheduling) is dropped without an error,
// and the scheduler then never sees it. Decided without I/O, from what was sent and what the API server answered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wm::controllers {

// The JSON Pointers, under /spec, of the members of `sent` that `stored` lacks (an object's members are compared one
// by one, a list or a value as a whole). Empty when either is not JSON or has no spec.
std::vector<std::string> dropped_fields(std::string_view sent, std::string_view stored);

}  // namespace wm::controllers
