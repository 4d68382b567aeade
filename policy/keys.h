// Every label, annotation and condition key that admission writes and the cluster side or a pod's own admission reads
// back: one place, so that a writer and its reader cannot drift apart. (The keys a definition itself carries, read by
// the catalog, are in mapper/catalog/definition.h.)
#pragma once

#include <string_view>

namespace wm {

// On a workload whose profile's PodGroups are made after admission (controllers/pod_groups): the profile, the gang
// name its pods carry, and its queue.
inline constexpr std::string_view kProfileLabel = "workload-map.io/profile";
inline constexpr std::string_view kGroupNameAnnotation = "workload-map.io/group-name";
inline constexpr std::string_view kQueueAnnotation = "workload-map.io/queue";

// The rule's summary on the workload (rules' summaryAnnotations): the gang's minimum, its pods, their requests.
inline constexpr std::string_view kGangSizeAnnotation = "workload-map.io/gang-size";
inline constexpr std::string_view kPodsAnnotation = "workload-map.io/pods";
inline constexpr std::string_view kRequestsAnnotation = "workload-map.io/requests";

// On the pod templates of a gang repeated per replica (webhook/replica_gang.h): the name every copy's pods carry, and
// the definition's replicaSelector.keyPath that reads a pod's replica key.
inline constexpr std::string_view kReplicaGangAnnotation = "workload-map.io/replica-gang";
inline constexpr std::string_view kReplicaKeyAnnotation = "workload-map.io/replica-key";

// The pod annotation that names the pod's PodGroup (the native profile's podAnnotations; webhook/pod_group_name.h).
inline constexpr std::string_view kPodGroupAnnotation = "workload-map.io/pod-group";

// On each PodGroup the cluster side makes: the uid of the workload it was made for, to find them again.
inline constexpr std::string_view kOwnerUidLabel = "workload-map.io/owner-uid";

// The condition the cluster side sets on a Karta it has checked (controllers/karta_check.h).
inline constexpr std::string_view kAcceptedCondition = "workload-map.io/Accepted";

}  // namespace wm
