#include "controllers/reference_watch.h"

#include "base/json/json_read.h"
#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"
#include "kube/reflector.h"
#include "kube/trim.h"
#include "mapper/view/claims.h"

namespace wm::controllers {

std::map<std::string, catalog::GroupVersionKind> referenced_kinds(const policy::AdmissionState& state) {
  std::map<std::string, catalog::GroupVersionKind> wanted;
  if (state.catalog)
    for (const auto& d : state.catalog->definitions())
      for (const auto& ref : d->references)
        for (const auto& k : ref.kinds) wanted.emplace(k.gvk.group + "/" + k.gvk.kind, k.gvk);
  // And the objects DRA claims are read from (mapper/view/claims.h): any pod may name them.
  for (const catalog::GroupVersionKind* claims :
       {&view::kResourceClaimTemplate, &view::kResourceClaim, &view::kDeviceClass})
    wanted.emplace(claims->group + "/" + claims->kind, *claims);
  // And the queues of the policy's schedulers, where they are objects: admission warns of a queue not among them.
  if (state.policy) {
    const bool names_a_topology = std::any_of(state.policy->rules().begin(), state.policy->rules().end(),
                                              [](const policy::Rule& r) { return r.topology.has_value(); });
    for (const auto& name : state.policy->profile_names()) {
      const catalog::GroupVersionKind& queues = state.policy->profile(name)->queues.object;
      if (!queues.kind.empty()) wanted.emplace(queues.group + "/" + queues.kind, queues);
      // And their topology objects, where a rule names a topology: admission warns of a level none of them has.
      const policy::TopologySource& topologies = state.policy->profile(name)->topologies;
      if (!names_a_topology) continue;
      // And what names them (Kueue's ResourceFlavors): a topology none names is not placed by.
      for (const catalog::GroupVersionKind* k : {&topologies.object, &topologies.named_by})
        if (!k->kind.empty()) wanted.emplace(k->group + "/" + k->kind, *k);
    }
  }
  return wanted;
}

std::map<std::string, catalog::GroupVersionKind> pod_group_kinds(const policy::AdmissionState& state) {
  std::map<std::string, catalog::GroupVersionKind> out;
  if (!state.policy) return out;
  auto add_kind = [&](const policy::ObjectTemplate* t) {
    if (t && t->object_kind()) out.emplace(t->object_kind()->group + "/" + t->object_kind()->kind, *t->object_kind());
  };
  auto add = [&](const policy::ProfileEdits& edits) {
    add_kind(edits.pod_group.get());
    if (edits.workload) add_kind(&edits.workload->object);
  };
  for (const auto& rule : state.policy->rules()) {  // the profiles in use: an unused one's kind is no one's concern
    if (!rule.profile) continue;
    add(rule.profile->edits);
    for (const auto& o : rule.profile->overrides) add(o.edits);
  }
  return out;
}

void ReferenceWatch::check_pod_group_kinds() {
  for (const auto& [key, gvk] : pod_group_kinds(cluster_.state.current())) {
    const Result<kube::Resource> found = cluster_.discovery.find(gvk.group, gvk.version, gvk.kind);
    if (!found && found.code() != ErrorCode::NotFound) continue;  // the API server did not say
    const bool served = bool(found);
    cluster_.state.references().set_served(gvk.group, gvk.kind, served);
    auto [was, first] = served_.try_emplace(key, served);
    if (!first && was->second == served) continue;
    was->second = served;
    if (!served)
      cluster_.log.log(LogLevel::Warn,
                       "a profile's PodGroup kind is not served: workloads under it get no gang, and admission says so",
                       {{"kind", gvk.api_version() + " " + gvk.kind}, {"problem", found.error()}});
    else if (!first)
      cluster_.log.log(LogLevel::Info, "a profile's PodGroup kind is served again", {{"kind", gvk.str()}});
  }
}

void ReferenceWatch::run(const std::atomic<bool>& stop) {
  for (int round = 0; !stop.load(); ++round) {
    if (round % 15 == 0) check_pod_group_kinds();                                         // at start, then every 30 s
    for (const auto& key : watchers_.sync(referenced_kinds(cluster_.state.current()))) {  // nothing refers to these
      const auto slash = key.find('/');
      cluster_.state.references().forget_kind(key.substr(0, slash), key.substr(slash + 1));
    }
    kube::sleep_unless_stopped(std::chrono::seconds(2), stop);
  }
  watchers_.stop_all();
}

void ReferenceWatch::watch_kind(const catalog::GroupVersionKind& gvk, const std::atomic<bool>& stop) {
  const std::optional<kube::Resource> resource =
      cluster_.discovery.find_once_served(gvk.group, gvk.version, gvk.kind, stop, [&](const std::string& error) {
        cluster_.log.log(LogLevel::Warn,
                         "cannot watch a referenced kind yet (retrying); meanwhile workloads that refer to it are "
                         "not understood, and a scheduler's queues of this kind are not checked",
                         {{"kind", gvk.str()}, {"problem", error}});
      });
  if (!resource) return;
  const std::string resource_name = resource->plural + (gvk.group.empty() ? "" : "." + gvk.group);
  view::ReferenceStore& store = cluster_.state.references();
  // Held as the watch cache keeps objects: without metadata.managedFields.
  auto trimmed = [](const std::string& object) {
    simdjson::dom::parser parser;
    simdjson::dom::element e;
    return parser.parse(object).get(e) == simdjson::SUCCESS ? kube::without_managed_fields(e) : std::string();
  };
  kube::Reflector reflector(cluster_.api, {resource->path(), resource->api_version(), gvk.kind, ""},
                            {[&](std::vector<std::string> objects) {
                               for (auto& o : objects) o = trimmed(o);
                               store.replace_kind(gvk.group, gvk.kind, std::move(objects));
                               if (changed_) changed_();
                             },
                             [&](kube::EventType type, const std::string& object) {
                               simdjson::dom::parser parser;
                               simdjson::dom::element e;
                               if (parser.parse(object).get(e) != simdjson::SUCCESS) return;
                               if (type == kube::EventType::Deleted) {
                                 store.remove(gvk.group, gvk.kind, json::string_at(e, "/metadata/namespace"),
                                              json::string_at(e, "/metadata/name"));
                                 return;
                               }
                               if (auto held = store.put(kube::without_managed_fields(e)); !held)
                                 cluster_.log.log(LogLevel::Warn, "referenced object not held",
                                                  {{"resource", resource_name}, {"problem", held.error()}});
                               else if (changed_)
                                 changed_();
                             },
                             [&](const std::string& problem) {
                               report_watch_failed(cluster_.metrics, cluster_.log, resource_name, problem,
                                                   "referenced objects of this kind");
                             },
                             [&] { report_watch_live(cluster_.metrics, resource_name); }});
  cluster_.log.log(LogLevel::Info, "watching referenced objects", {{"resource", resource_name}});
  reflector.run(stop);
}

}  // namespace wm::controllers
