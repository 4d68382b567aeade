#include "controllers/karta_source.h"

#include <simdjson.h>

#include "base/json/json_read.h"
#include "base/json/json_writer.h"
#include "controllers/cluster_metrics.h"
#include "controllers/karta_labels.h"
#include "kube/backoff.h"
#include "kube/leader_election.h"
#include "kube/reflector.h"

namespace wm::controllers {

namespace {

std::string karta_path(const std::string& name) { return "/apis/run.ai/v1alpha1/kartas/" + kube::url_encode(name); }

}  // namespace

bool KartaSource::update(const std::string& object_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element karta;
  if (parser.parse(object_json).get(karta) != simdjson::SUCCESS) return false;
  const std::string name(json::string_at(karta, "/metadata/name"));
  if (name.empty()) return false;
  int64_t generation = 0;
  if (karta.at_pointer("/metadata/generation").get_int64().get(generation) != simdjson::SUCCESS) generation = 0;
  Entry& entry = entries_[name];
  entry.uid = json::string_at(karta, "/metadata/uid");
  entry.shown = shown_condition(karta);
  const bool checked = entry.generation != generation;
  if (checked) {  // a status write alone does not change the generation
    entry.generation = generation;
    KartaVerdict verdict = check_karta(object_json, name, generation, entry.live ? entry.live_generation : -1);
    entry.wanted = verdict.condition;
    if (verdict.accepted) {
      entry.live = std::move(verdict.accepted);
      entry.live_generation = generation;
      cluster_.log.log(LogLevel::Info, "Karta accepted", {{"karta", name}, {"kind", entry.live->gvk.str()}});
    } else {
      cluster_.log.log(LogLevel::Warn, "Karta refused", {{"karta", name}, {"problems", verdict.problems}});
    }
  }
  entry.labels_patch = karta_lookup_labels_patch(karta);
  if (entry.needs_writing()) statuses_.add(name);
  return checked;
}

void KartaSource::publish() {
  std::vector<std::shared_ptr<const catalog::Definition>> live;
  size_t accepted = 0, refused = 0;
  for (const auto& [name, entry] : entries_) {
    if (entry.live) live.push_back(entry.live);
    (entry.wanted.accepted() ? accepted : refused)++;
  }
  cluster_.state.set_cluster_definitions(std::move(live));
  cluster_.metrics.set_definitions(cluster_.state.current().catalog->size());
  cluster_.metrics.set_gauge(kKartasMetric, {{"state", "accepted"}}, static_cast<double>(accepted));
  cluster_.metrics.set_gauge(kKartasMetric, {{"state", "refused"}}, static_cast<double>(refused));
}

void KartaSource::replaced(std::vector<std::string> objects) {
  std::lock_guard lock(mutex_);
  std::map<std::string, Entry> before = std::move(entries_);
  entries_.clear();
  for (const auto& object : objects) {
    simdjson::dom::parser parser;
    simdjson::dom::element karta;
    if (parser.parse(object).get(karta) != simdjson::SUCCESS) continue;
    // Keep what was known, so that an unchanged Karta is not checked again and a broken one keeps its last good.
    const std::string name(json::string_at(karta, "/metadata/name"));
    if (auto it = before.find(name); it != before.end()) entries_[name] = std::move(it->second);
    update(object);
  }
  publish();
}

void KartaSource::changed(bool deleted, const std::string& object) {
  std::lock_guard lock(mutex_);
  if (deleted) {
    simdjson::dom::parser parser;
    simdjson::dom::element karta;
    if (parser.parse(object).get(karta) == simdjson::SUCCESS) {
      const std::string name(json::string_at(karta, "/metadata/name"));
      entries_.erase(name);
      cluster_.log.log(LogLevel::Info, "Karta deleted", {{"karta", name}});
    }
    publish();
  } else if (update(object)) {  // a status write alone changes no definition
    publish();
  }
}

void KartaSource::watch(const std::atomic<bool>& stop) {
  cluster_.state.expect_cluster_definitions();
  kube::Reflector reflector(
      cluster_.api, {"/apis/run.ai/v1alpha1/kartas", "run.ai/v1alpha1", "Karta", ""},
      {[&](std::vector<std::string> objects) { replaced(std::move(objects)); },
       [&](kube::EventType type, const std::string& object) { changed(type == kube::EventType::Deleted, object); },
       [&](const std::string& problem) {  // logged first: whoever sees the gauge drop finds the reason
         cluster_.log.log(LogLevel::Warn, "Karta watch failed; definitions from the cluster may be stale",
                          {{"problem", problem}});
         cluster_.metrics.set_gauge(kWatchUpMetric, {{"resource", "kartas.run.ai"}}, 0);
         cluster_.metrics.add_counter(kWatchFailuresMetric, {{"resource", "kartas.run.ai"}});
       },
       [&] {
         cluster_.metrics.set_gauge(kWatchUpMetric, {{"resource", "kartas.run.ai"}}, 1);
       }});
  reflector.run(stop);
}

void KartaSource::leadership_changed(bool leading) {
  if (!leading) return;
  std::lock_guard lock(mutex_);
  for (const auto& [name, entry] : entries_)
    if (entry.needs_writing()) statuses_.add(name);
}

void KartaSource::write_statuses(const std::atomic<bool>& stop, const std::atomic<bool>& leading) {
  std::string name;
  while (statuses_.next(name, stop)) {
    const WorkQueue::Holding holding(statuses_, name);
    if (!leading.load()) continue;  // the leader writes; leadership_changed() queues them again
    // The status first: the watch event the label write causes then shows it, and is no reason to write it again.
    const Result<void> status = write_status(name);
    const Result<void> labels = write_labels(name);
    const bool retry = (!status && retryable(status.code())) || (!labels && retryable(labels.code()));
    if (retry) statuses_.add(name, std::chrono::seconds(5));
  }
}

Result<void> KartaSource::write_labels(const std::string& name) {
  std::string body;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end() || !it->second.labels_patch) return {};
    body = *it->second.labels_patch;
  }
  // A field manager of its own: the labels stay the cluster side's, apart from the status it writes.
  kube::Response r = cluster_.api.request(
      "PATCH", karta_path(name) + "?fieldManager=workload-map-kai-lookup&force=true", body, kube::kApplyPatch);
  if (r.ok()) {
    cluster_.log.log(LogLevel::Info, "Karta labelled for KAI Scheduler's lookup", {{"karta", name}});
    std::lock_guard lock(mutex_);
    if (auto it = entries_.find(name); it != entries_.end() && it->second.labels_patch == body)
      it->second.labels_patch.reset();  // the watch's next event says so too
    return {};
  }
  if (r.status == 404) return {};  // deleted meanwhile
  cluster_.log.log(LogLevel::Warn, "cannot label a Karta for KAI Scheduler's lookup",
                   {{"karta", name}, {"problem", r.describe()}});
  return r.failure_to_retry("label Karta " + name);
}

Result<void> KartaSource::write_status(const std::string& name) {
  std::optional<KartaStatusWrite> write;
  KartaCondition wanted;
  std::string uid;
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) return {};
    wanted = it->second.wanted;
    uid = it->second.uid;
    write = plan_karta_status(name, wanted, it->second.shown, kube::micro_time_now().substr(0, 19) + "Z");
  }
  if (!write) return {};
  kube::Response r = cluster_.api.request("PATCH", karta_path(name) + "/status?fieldManager=workload-map&force=true",
                                          write->body, kube::kApplyPatch);
  if (r.ok() && write->transition) {
    const ObjectReference karta{"run.ai/v1alpha1", "Karta", "", name, uid};
    if (wanted.accepted())
      cluster_.events.normal(karta, wanted.reason, wanted.message);
    else
      cluster_.events.warning(karta, wanted.reason, wanted.message);
  }
  if (r.ok() || r.status == 404) return {};  // 404: deleted meanwhile
  cluster_.log.log(LogLevel::Warn, "cannot write a Karta's status", {{"karta", name}, {"problem", r.describe()}});
  return r.failure_to_retry("write the status of Karta " + name);
}

}  // namespace wm::controllers
