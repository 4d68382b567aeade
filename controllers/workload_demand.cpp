#include "controllers/workload_demand.h"

#include "base/json/json_read.h"
#include "controllers/cluster_metrics.h"
#include "kube/backoff.h"
#include "live/inventory.h"

namespace wm::controllers {

namespace {

std::string kind_key(const catalog::GroupVersionKind& gvk) { return gvk.group + "/" + gvk.kind; }

bool is_pod(const catalog::GroupVersionKind& gvk) { return gvk.group.empty() && gvk.kind == "Pod"; }

std::vector<std::pair<Metrics::OwnedLabels, double>> gauges(const std::vector<live::DemandTotals::Series>& series) {
  std::vector<std::pair<Metrics::OwnedLabels, double>> out;
  out.reserve(series.size());
  for (const auto& s : series) out.emplace_back(s.labels, s.value);
  return out;
}

}  // namespace

std::map<std::string, catalog::GroupVersionKind> live_kinds(const policy::AdmissionState& state) {
  std::map<std::string, catalog::GroupVersionKind> kinds;
  for (const auto& d : state.catalog->definitions()) kinds.emplace(kind_key(d->gvk), d->gvk);
  kinds.emplace("/Pod", catalog::GroupVersionKind{"", "v1", "Pod"});
  for (const auto& name : state.policy->profile_names())
    if (const auto& g = state.policy->profile(name)->gang_status.object; !g.kind.empty()) kinds.emplace(kind_key(g), g);
  return kinds;
}

WorkloadDemandWatch::WorkloadDemandWatch(const ClusterContext& cluster)
    : cluster_(cluster), watchers_([this](const catalog::GroupVersionKind& kind, const std::atomic<bool>& stop) {
        watch_kind(kind, stop);
      }) {
  for (const MetricFamily& f : {kWorkloadsMetric, kWorkloadPodsMetric, kWorkloadRequestsMetric, kGangsWaitingMetric,
                                kLiveObjectsMetric, kLiveBytesMetric, kLiveUpdateMetric})
    cluster_.metrics.declare(f);
}

WorkloadDemandWatch::~WorkloadDemandWatch() { watchers_.stop_all(); }

live::LiveRole WorkloadDemandWatch::role_of(const catalog::GroupVersionKind& gvk) const {
  if (is_pod(gvk)) return live::LiveRole::Pod;
  const policy::AdmissionState state = cluster_.state.current();
  for (const auto& d : state.catalog->definitions())
    if (d->gvk.group == gvk.group && d->gvk.kind == gvk.kind) return live::LiveRole::Object;
  return live::LiveRole::Gang;
}

kube::KeepObject WorkloadDemandWatch::keep_for(const catalog::GroupVersionKind& gvk) const {
  if (!is_pod(gvk)) return [](simdjson::dom::element o) { return live::object_as_kept(o); };
  return [this](simdjson::dom::element pod) { return live::pod_as_kept(pod, *cluster_.state.current().catalog); };
}

void WorkloadDemandWatch::watch_kind(const catalog::GroupVersionKind& gvk, const std::atomic<bool>& stop) {
  // The first version the API server serves of those the catalog's definitions read (the API server converts).
  std::vector<std::string> versions;
  for (const auto& d : cluster_.state.current().catalog->definitions())
    if (d->gvk.group == gvk.group && d->gvk.kind == gvk.kind)
      for (const auto& v : d->versions.empty() ? std::vector<std::string>{d->gvk.version} : d->versions)
        versions.push_back(v);
  if (versions.empty()) versions.push_back(gvk.version);
  const std::optional<kube::Resource> resource =
      cluster_.discovery.find_once_served(gvk.group, versions, gvk.kind, stop, [](const std::string&) {});
  if (!resource) return;
  const std::string resource_name = resource->plural + (gvk.group.empty() ? "" : "." + gvk.group);
  const catalog::GroupVersionKind served{gvk.group, resource->version, gvk.kind};
  kube::Reflector reflector(cluster_.api, {resource->path(), resource->api_version(), gvk.kind, "", keep_for(gvk)},
                            {[&](std::vector<std::string> objects) { relisted(served, objects); },
                             [&](kube::EventType type, const std::string& object) { changed(served, type, object); },
                             [&](const std::string& problem) {
                               report_watch_failed(cluster_.metrics, cluster_.log, resource_name, problem,
                                                   "the workload metrics");
                             },
                             [&] { report_watch_live(cluster_.metrics, resource_name); }});
  cluster_.log.log(LogLevel::Info, "watching for the workload metrics", {{"resource", resource_name}});
  reflector.run(stop);
}

void WorkloadDemandWatch::relisted(const catalog::GroupVersionKind& gvk, const std::vector<std::string>& objects) {
  const live::LiveRole role = role_of(gvk);
  const std::string api_version = gvk.group.empty() ? gvk.version : gvk.group + "/" + gvk.version;
  const auto catalog = cluster_.state.current().catalog;
  std::lock_guard lock(mutex_);
  std::set<std::string> uids;
  for (const auto& o : objects)
    if (std::string uid = store_.put(role, api_version, gvk.kind, o, *catalog, touched_); !uid.empty())
      uids.insert(std::move(uid));
  store_.keep_only(gvk.group, gvk.kind, uids, *catalog, touched_);
  if (first_touch_ == std::chrono::steady_clock::time_point{}) first_touch_ = std::chrono::steady_clock::now();
  touched_changed_.notify_one();
}

void WorkloadDemandWatch::changed(const catalog::GroupVersionKind& gvk, kube::EventType type,
                                  const std::string& object) {
  const auto catalog = cluster_.state.current().catalog;
  std::string uid;
  if (type == kube::EventType::Deleted) {
    simdjson::dom::parser parser;
    simdjson::dom::element e;
    if (parser.parse(object).get(e) != simdjson::SUCCESS) return;
    uid = json::string_at(e, "/metadata/uid");
  }
  std::lock_guard lock(mutex_);
  if (type == kube::EventType::Deleted)
    store_.remove(uid, *catalog, touched_);
  else
    store_.put(role_of(gvk), gvk.group.empty() ? gvk.version : gvk.group + "/" + gvk.version, gvk.kind, object,
               *catalog, touched_);
  if (first_touch_ == std::chrono::steady_clock::time_point{}) first_touch_ = std::chrono::steady_clock::now();
  touched_changed_.notify_one();
}

void WorkloadDemandWatch::references_changed() {
  std::lock_guard lock(mutex_);
  references_changed_ = true;
  touched_changed_.notify_one();
}

void WorkloadDemandWatch::watch(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    watchers_.sync(live_kinds(cluster_.state.current()));
    kube::sleep_unless_stopped(std::chrono::seconds(2), stop);
  }
  watchers_.stop_all();
}

void WorkloadDemandWatch::publish(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    {
      std::unique_lock lock(mutex_);
      touched_changed_.wait_for(lock, std::chrono::seconds(1),
                                [&] { return !touched_.empty() || references_changed_; });
    }
    // A burst of changes (a relist, a gang's pods binding together) is taken in as one batch.
    if (!kube::sleep_unless_stopped(kBatch, stop)) return;
    publish_once();
  }
}

// The uids of the workloads to make again: those touched since the last round, every one after a reload (or, at most
// once per kEverythingEvery, a change to a referenced object); `since` is when the first of them changed.
std::set<std::string> WorkloadDemandWatch::take_touched(const policy::AdmissionState& state,
                                                        std::chrono::steady_clock::time_point& since) {
  const auto now = std::chrono::steady_clock::now();
  std::set<std::string> touched;
  bool everything = state.catalog != catalog_ || state.policy != policy_;
  {
    std::lock_guard lock(mutex_);
    if (references_changed_ && now - last_everything_ >= kEverythingEvery) {
      references_changed_ = false;
      everything = true;
    }
    touched.swap(touched_);
    since = first_touch_ == std::chrono::steady_clock::time_point{} ? now : first_touch_;
    first_touch_ = {};
    if (everything) {
      for (auto& uid : store_.workloads(*state.catalog)) touched.insert(std::move(uid));
      last_everything_ = now;
    }
  }
  if (everything)
    for (const auto& [uid, demand] : demands_) touched.insert(uid);
  catalog_ = state.catalog;
  policy_ = state.policy;
  touched.erase("");
  return touched;
}

// The workload `uid` made again from what the store holds of it, as `get` makes it; its old demand taken from the sums
// and its new one added (none when it is no longer a workload).
void WorkloadDemandWatch::remake(const std::string& uid, const policy::AdmissionState& state) {
  std::optional<live::Snapshot> snapshot;
  {
    std::lock_guard lock(mutex_);
    if (store_.is_workload(uid, *state.catalog)) snapshot = store_.snapshot_of(uid, *state.catalog);
  }
  std::optional<live::WorkloadDemand> demand;
  if (snapshot) {
    auto workloads = live::live_workloads(state, *snapshot, [&](const live::LiveObject& root) {
      return json::string_at(root.object, "/metadata/uid") == uid;
    });
    if (workloads.size() == 1) demand = live::demand_of(workloads[0]);
  }
  auto held = demands_.find(uid);
  if (held != demands_.end() && demand && held->second == *demand) return;
  if (held != demands_.end()) {
    totals_.subtract(held->second);
    demands_.erase(held);
  }
  if (demand) {
    totals_.add(*demand);
    demands_.emplace(uid, std::move(*demand));
  }
}

void WorkloadDemandWatch::publish_once() {
  const policy::AdmissionState state = cluster_.state.current();
  std::chrono::steady_clock::time_point since;
  const std::set<std::string> touched = take_touched(state, since);
  if (touched.empty()) return;
  for (const auto& uid : touched) remake(uid, state);
  Metrics& m = cluster_.metrics;
  m.replace_gauges(kWorkloadsMetric, gauges(totals_.workloads()));
  m.replace_gauges(kWorkloadPodsMetric, gauges(totals_.pods()));
  m.replace_gauges(kWorkloadRequestsMetric, gauges(totals_.requests()));
  m.replace_gauges(kGangsWaitingMetric, gauges(totals_.gangs_waiting()));
  live::LiveStore::Counts counts;
  {
    std::lock_guard lock(mutex_);
    counts = store_.counts();
  }
  m.set_gauge(kLiveObjectsMetric, {{"role", "object"}}, double(counts.objects));
  m.set_gauge(kLiveObjectsMetric, {{"role", "pod"}}, double(counts.pods));
  m.set_gauge(kLiveObjectsMetric, {{"role", "gang"}}, double(counts.gangs));
  m.set_gauge(kLiveBytesMetric, {}, double(counts.bytes));
  m.set_gauge(kLiveUpdateMetric, {}, std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
}

}  // namespace wm::controllers
