// What each workload asks of the cluster, summed into the bounded series of the webhook's workload metrics
// (controllers/workload_demand.h): per namespace, kind and phase, how many workloads, their pods and what they request;
// per namespace, kind and scheduler, how many of their gangs wait. No series per workload: the label sets stay as
// small as the cluster's namespaces times the catalog's kinds. Pure: tested without a cluster.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "live/inventory.h"
#include "mapper/view/quantity.h"

namespace wm::live {

struct WorkloadDemand {
  std::string namespace_name, kind, phase, scheduler;
  PodCounts pods;
  view::ResourceList requests;  // the whole workload's: every pod's requests, its DRA claims' devices
  long long gangs_waiting = 0;  // its gangs whose scheduler records them waiting
  bool operator==(const WorkloadDemand&) const = default;
};

WorkloadDemand demand_of(const LiveWorkload& workload);

class DemandTotals {
 public:
  void add(const WorkloadDemand& demand) { apply(demand, 1); }
  void subtract(const WorkloadDemand& demand) { apply(demand, -1); }

  using Labels = std::vector<std::pair<std::string, std::string>>;
  struct Series {
    Labels labels;
    double value;
    bool operator==(const Series&) const = default;
  };
  std::vector<Series> workloads() const;      // {namespace, kind, phase}
  std::vector<Series> pods() const;           // {namespace, kind, phase, state: expected | scheduled | running}
  std::vector<Series> requests() const;       // {namespace, kind, phase, resource}, in the resource's units
  std::vector<Series> gangs_waiting() const;  // {namespace, kind, scheduler}
  size_t size() const { return sums_.size(); }

 private:
  void apply(const WorkloadDemand& demand, int sign);
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Sum {
    long long workloads = 0;
    PodCounts pods;
    std::map<std::string, __int128> requests_milli;  // exact, so that what is added and taken away leaves nothing
  };
  std::map<Key, Sum> sums_;           // by namespace, kind, phase
  std::map<Key, long long> waiting_;  // by namespace, kind, scheduler
};

}  // namespace wm::live
