// Live workloads as JSON, for `get -o json` and `describe -o json`: stable for scripts (docs/cli.md lists the fields).
#pragma once

#include <string>
#include <vector>

#include "live/inventory.h"
#include "live/why.h"

namespace wm::live {

// {"items":[...], "notes":[...]}: a row's fields per workload.
std::string workloads_json(const std::vector<LiveWorkload>& workloads, const std::vector<std::string>& notes);
// One workload's row fields, its view (components, instances, requests), its pods and why it waits.
std::string workload_detail_json(const LiveWorkload& workload, const std::vector<Reason>& why);

}  // namespace wm::live
