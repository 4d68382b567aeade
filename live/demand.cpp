#include "live/demand.h"

#include <algorithm>

namespace wm::live {

WorkloadDemand demand_of(const LiveWorkload& w) {
  WorkloadDemand d{w.namespace_name, w.kind, w.phase, w.scheduler, w.pods, w.view.total_requests, 0};
  d.gangs_waiting = std::count_if(w.gangs.begin(), w.gangs.end(), [](const GangState& g) { return g.waiting; });
  return d;
}

void DemandTotals::apply(const WorkloadDemand& d, int sign) {
  const Key key{d.namespace_name, d.kind, d.phase};
  Sum& sum = sums_[key];
  sum.workloads += sign;
  sum.pods.expected += sign * d.pods.expected;
  sum.pods.existing += sign * d.pods.existing;
  sum.pods.scheduled += sign * d.pods.scheduled;
  sum.pods.running += sign * d.pods.running;
  for (const auto& [resource, quantity] : d.requests) {
    __int128& total = sum.requests_milli[resource];
    total += sign * quantity.milli();
    if (total == 0) sum.requests_milli.erase(resource);
  }
  if (sum.workloads == 0) sums_.erase(key);  // the series goes with the last workload it counted
  if (d.gangs_waiting) {
    const Key waiting{d.namespace_name, d.kind, d.scheduler};
    if ((waiting_[waiting] += sign * d.gangs_waiting) == 0) waiting_.erase(waiting);
  }
}

namespace {

DemandTotals::Labels labels_of(const std::tuple<std::string, std::string, std::string>& key, const char* third) {
  const auto& [namespace_name, kind, value] = key;
  return {{"namespace", namespace_name}, {"kind", kind}, {third, value}};
}

}  // namespace

std::vector<DemandTotals::Series> DemandTotals::workloads() const {
  std::vector<Series> out;
  for (const auto& [key, sum] : sums_) out.push_back({labels_of(key, "phase"), double(sum.workloads)});
  return out;
}

std::vector<DemandTotals::Series> DemandTotals::pods() const {
  std::vector<Series> out;
  for (const auto& [key, sum] : sums_)
    for (const auto& [state, n] : {std::pair<const char*, long long>{"expected", sum.pods.expected},
                                   {"scheduled", sum.pods.scheduled},
                                   {"running", sum.pods.running}}) {
      Labels labels = labels_of(key, "phase");
      labels.emplace_back("state", state);
      out.push_back({std::move(labels), double(n)});
    }
  return out;
}

std::vector<DemandTotals::Series> DemandTotals::requests() const {
  std::vector<Series> out;
  for (const auto& [key, sum] : sums_)
    for (const auto& [resource, milli] : sum.requests_milli) {
      Labels labels = labels_of(key, "phase");
      labels.emplace_back("resource", resource);
      out.push_back({std::move(labels), double(milli) / 1000});
    }
  return out;
}

std::vector<DemandTotals::Series> DemandTotals::gangs_waiting() const {
  std::vector<Series> out;
  for (const auto& [key, n] : waiting_) out.push_back({labels_of(key, "scheduler"), double(n)});
  return out;
}

}  // namespace wm::live
