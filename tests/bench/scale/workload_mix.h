// The scale benchmark's workloads: a fixed, seeded mix of the catalog's kinds as a training cluster runs them
// (mostly JobSets and PyTorchJobs, some plain Jobs), 1 to 16 pods each (5 on average), one GPU per pod, every pod
// selecting one node pool. The same seed always gives the same workloads, so that two runs compare.
#pragma once

#include <string>
#include <vector>

namespace wm::bench {

struct Workload {
  std::string kind, resource_path, name, json;  // resource_path: /apis/GROUP/VERSION/namespaces/NS/RESOURCE
  int pods = 0;
};

std::vector<Workload> workload_mix(int count, const std::string& ns, const std::string& pool, unsigned seed = 1);

}  // namespace wm::bench
