// One phase per live workload, from its definition's status mappings (several may hold) and its pods: what `get`
// shows and `--phase` filters on. docs/cli.md has the rule.
#pragma once

#include <string>
#include <vector>

namespace wm::live {

struct PodCounts {
  long long expected = 0;   // the pods the definition says the workload starts
  long long existing = 0;   // its pods that exist now
  long long scheduled = 0;  // of them, bound to a node
  long long running = 0;    // of them, in phase Running
  bool operator==(const PodCounts&) const = default;
};

// Failed or Completed when the definition says so; Pending while its scheduler records its gang waiting (Kueue suspends
// a job it has not admitted: queued, not suspended by its user); Suspended when the definition says so; Pending while
// the workload expects pods and none is bound (they wait for a scheduler, or were never made); else Degraded, Running,
// Initializing or Resuming as the definition says; else Running while a pod runs; else Unknown.
std::string live_phase(const std::vector<std::string>& definition_phases, const PodCounts& pods, bool gang_waiting);

}  // namespace wm::live
