#include "live/live_phase.h"

#include <algorithm>

namespace wm::live {

std::string live_phase(const std::vector<std::string>& phases, const PodCounts& pods, bool gang_waiting) {
  auto says = [&](const char* phase) { return std::find(phases.begin(), phases.end(), phase) != phases.end(); };
  if (says("failed")) return "Failed";
  if (says("completed")) return "Completed";
  if (gang_waiting && pods.scheduled == 0) return "Pending";
  if (says("suspended") || says("suspending")) return "Suspended";
  if (pods.expected > 0 && pods.scheduled == 0) return "Pending";
  if (says("degraded")) return "Degraded";
  if (says("running")) return "Running";
  if (says("initializing")) return "Initializing";
  if (says("resuming")) return "Resuming";
  if (pods.running > 0) return "Running";
  return "Unknown";
}

}  // namespace wm::live
