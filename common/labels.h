// Labels and annotations that admission writes on a workload and the cluster side reads back (controllers/pod_groups):
// for a profile whose PodGroups are made after admission, the profile, the gang name its pods carry, and its queue.
#pragma once

#include <string_view>

namespace wm {

inline constexpr std::string_view kProfileLabel = "workload-map.io/profile";
inline constexpr std::string_view kGroupNameAnnotation = "workload-map.io/group-name";
inline constexpr std::string_view kQueueAnnotation = "workload-map.io/queue";

}  // namespace wm
