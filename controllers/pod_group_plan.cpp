#include "controllers/pod_group_plan.h"

#include <algorithm>
#include <iterator>

#include "base/json/json_patch.h"
#include "base/json/json_pointer.h"
#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "mapper/expr/json_patch_apply.h"
#include "mapper/view/workload_view.h"
#include "policy/gang_values.h"
#include "policy/keys.h"
#include "policy/profile_choice.h"
#include "policy/profiled_view.h"

namespace wm::controllers {

namespace {

// The rendered object with its owner and the labels that find it again: owned by the workload (so that the garbage
// collector deletes it with the workload) and labelled with the workload's uid.
Result<std::string> owned(const std::string& object_json, simdjson::dom::element object,
                          simdjson::dom::element workload) {
  const std::string uid(json::string_at(workload, "/metadata/uid"));
  json::JsonWriter owner;
  owner.begin_array().begin_object();
  owner.field("apiVersion", json::string_at(workload, "/apiVersion"));
  owner.field("kind", json::string_at(workload, "/kind"));
  owner.field("name", json::string_at(workload, "/metadata/name"));
  owner.field("uid", uid);
  owner.end_object().end_array();
  json::JsonPatchBuilder patch(object);
  Result<void> done = patch.set("/metadata/ownerReferences", owner.str());
  if (done)
    done = patch.merge_map("/metadata/labels",
                           {{"app.kubernetes.io/managed-by", "workload-map"}, {std::string(kOwnerUidLabel), uid}});
  if (!done) return Error{done.error(), ErrorCode::Internal};
  auto applied = expr::apply_json_patch(object_json, patch.str());
  if (!applied) return Error{applied.error(), ErrorCode::Internal};
  return applied;
}

}  // namespace

std::map<std::string, catalog::GroupVersionKind> kinds_needing_pod_groups(const policy::AdmissionState& state) {
  std::map<std::string, catalog::GroupVersionKind> wanted;
  if (!state.catalog || !state.policy) return wanted;
  for (const auto& d : state.catalog->definitions())
    for (const auto& rule : state.policy->rules()) {
      if (!rule.profile) continue;
      const bool kind_ok = std::any_of(rule.kinds.begin(), rule.kinds.end(), [&](const std::string& k) {
        return policy::kind_matches(k, d->gvk.group, d->gvk.kind);
      });
      auto makes_objects = [&](bool standalone) {
        const auto& edits = policy::edits_for(*rule.profile, d->gvk.group, d->gvk.kind, standalone);
        return edits.pod_group || edits.workload;
      };
      if (kind_ok && (makes_objects(true) || makes_objects(false)))
        wanted.emplace(d->gvk.group + "/" + d->gvk.kind, d->gvk);
    }
  return wanted;
}

Result<DesiredPodGroups> plan_pod_groups(const policy::AdmissionState& state, simdjson::dom::element workload,
                                         const kube::FindResource& find) {
  const std::string api_version(json::string_at(workload, "/apiVersion")), kind(json::string_at(workload, "/kind"));
  const std::string namespace_name(json::string_at(workload, "/metadata/namespace"));
  const std::string profile_name(json::string_at(workload, json::pointer_child("/metadata/labels", kProfileLabel)));
  const catalog::Catalog::Match match = state.catalog->find(api_version, kind);
  const policy::SchedulerProfile* profile = state.policy->profile(profile_name);
  if (!match.definition || !profile) return Error{"its kind or its profile (" + profile_name + ") is no longer known"};
  json::ObjectDocument doc(workload);
  // Not as sent: an override that looks at the pod specs was decided by admission, on the object as it was sent, and
  // admission labels for this controller only a workload whose objects are to be made. Here the pod specs are as
  // admission left them, a root Job's naming workload-map's own gang.
  policy::ProfiledViewRequest request;
  request.profile = profile;
  request.as_sent = false;
  // The topology of the rule that chose this profile at admission (one of a rule that now picks another is not its).
  const policy::Rule* rule = state.policy->match(namespace_name, json::split_api_version(api_version).first, kind);
  if (rule && rule->profile == profile && rule->topology) request.topology = &*rule->topology;
  const policy::ProfiledView profiled = policy::profiled_view(state, *match.definition, doc, request);
  DesiredPodGroups desired;
  if (!profiled.edits->pod_group && !profiled.edits->workload) return desired;  // none: any it has go
  // Gangs from a view with problems may be wrong: nothing changes until the workload does (what it has stays).
  if (!profiled.view.problems.empty())
    return Error{"workload-map cannot understand it: " + profiled.view.problems.front()};
  // Its pods are in an object not held yet (a WorkflowTemplate created just before it, or never): no gang is known
  // (a gang of 0 pods the API server refuses) until it comes.
  if (!profiled.view.unresolved_references.empty()) {
    desired.waits_for = profiled.view.unresolved_references.front();
    return desired;
  }
  std::string group_name(json::string_at(workload, json::pointer_child("/metadata/annotations", kGroupNameAnnotation)));
  if (group_name.empty()) group_name = json::string_at(workload, "/metadata/name");
  const std::string queue(json::string_at(workload, json::pointer_child("/metadata/annotations", kQueueAnnotation)));
  policy::GangObjects objects = policy::gang_objects(profiled, *profile, workload, group_name, queue);
  desired.no_workload = std::move(objects.no_workload);
  const bool has_workload = !objects.workload.empty();
  std::vector<std::string> made;  // the workload object first
  if (has_workload) made.push_back(std::move(objects.workload));
  std::move(objects.pod_groups.begin(), objects.pod_groups.end(), std::back_inserter(made));
  simdjson::dom::parser object_parser;
  for (size_t i = 0; i < made.size(); ++i) {
    const std::string& object_json = made[i];
    simdjson::dom::element object;
    if (object_parser.parse(object_json).get(object) != simdjson::SUCCESS)
      return Error{"its profile's object is not JSON: " + object_json, ErrorCode::Internal};
    const auto [group, version] = json::split_api_version(json::string_at(object, "/apiVersion"));
    auto resource = find(std::string(group), std::string(version), std::string(json::string_at(object, "/kind")));
    if (!resource) return resource.failure();
    std::string object_namespace(json::string_at(object, "/metadata/namespace"));
    if (object_namespace.empty()) object_namespace = namespace_name;
    auto body = owned(object_json, object, workload);
    if (!body) return body.failure();
    const std::string path = resource->path(object_namespace);
    desired.resources.emplace(path, *resource);
    PodGroupPlace place{path, std::string(json::string_at(object, "/metadata/name"))};
    if (i == 0 && has_workload) desired.workload = place;
    desired.bodies[place] = std::move(*body);
  }
  return desired;
}

PodGroupWrites plan_pod_group_writes(const DesiredPodGroups& desired,
                                     const std::map<PodGroupPlace, std::string>& applied) {
  PodGroupWrites writes;
  for (const auto& [place, body] : desired.bodies)
    if (auto it = applied.find(place); it == applied.end() || it->second != body)
      writes.apply.emplace_back(place, &body);
  std::stable_partition(writes.apply.begin(), writes.apply.end(),
                        [&](const auto& write) { return desired.workload && write.first == *desired.workload; });
  for (const auto& [place, body] : applied)
    if (!desired.bodies.count(place)) writes.remove.push_back(place);
  return writes;
}

}  // namespace wm::controllers
