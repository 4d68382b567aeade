// Gangs from a view: which pods must start together, as the definition's gangScheduling says and as a
// scheduler counts them (GangRule). Kept apart from the view because admission asks for them per profile.
#pragma once

#include <vector>

#include "mapper/view/workload_view.h"

namespace wm::view {

// gangScheduling.podGroup (newer format) when the definition has one, else its podGroups, else one gang of every
// pod. A pod group member whose groupByKeyPaths read the key that tells its component's replicas apart (its
// podSelector.replicaSelector.keyPath: LeaderWorkerSet's group index) gives one gang per replica, as the pods
// will be grouped once they exist; such a gang is returned once, with `copies` set to the number of replicas.
// A pod group member's `filters` (jq over one pod, ANDed) are evaluated over each of its pod templates as a pod;
// a template that fails one is left out of that member. Filter errors are added to `problems`.
std::vector<GangGroupView> compute_gangs(const catalog::Definition& definition,
                                         const std::vector<ComponentView>& components, const ViewOptions& options,
                                         json::ObjectDocument& doc, std::vector<std::string>& problems);

// A gang whose minimum is more than the pods it starts never starts: the scheduler waits for pods that never
// come. One sentence per such gang, naming both numbers (empty when every gang can start), and the gang by
// `names[i]` when given (the name its pods carry), else by its definition's name.
std::vector<std::string> unmeetable_gangs(const std::vector<GangGroupView>& gangs,
                                          const std::vector<std::string>& names = {});

// A pod template a gang counts, and its share of the gang's minimum (of one copy, for gangs repeated per replica).
struct GangMember {
  const ComponentView* component;
  const InstanceView* instance;
  long long min_member;
};
std::vector<GangMember> gang_members(const GangGroupView& gang, const std::vector<ComponentView>& components,
                                     GangRule rule);
// What the gang's minimum asks for: each member's minimum times one pod's requests.
ResourceList gang_min_resources(const std::vector<GangMember>& members);

// The gangs one by one, a gang repeated per replica expanded into "<name>-<replica>" (at most `limit` entries).
std::vector<GangGroupView> expanded_gangs(const std::vector<GangGroupView>& gangs, size_t limit);

// The name a gang's pods carry ({{group}} in a profile): the workload's name when it is the only gang, else the
// workload's name and the gang's ("train-cluster"). A gang repeated per replica always gets both ("serve-group"):
// its copies share their pod templates, so the pods are written that name, and each pod's admission appends its
// replica key to it ("serve-group-1"; webhook/replica_gang.h), the name of its copy's PodGroup.
std::string gang_object_name(const std::string& workload, const std::vector<GangGroupView>& gangs,
                             const GangGroupView& gang);

// The view's gangs one by one, each under the name its pods and PodGroup get at admission (inspect, review).
void name_gangs_as_admitted(WorkloadView& view);

}  // namespace wm::view
