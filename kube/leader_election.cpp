#include "kube/leader_election.h"

#include <simdjson.h>

#include <ctime>

#include "base/json/json_writer.h"
#include "kube/backoff.h"

namespace wm::kube {

using Clock = std::chrono::steady_clock;

std::string micro_time_now() {
  const auto now = std::chrono::system_clock::now();
  const auto seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", text, static_cast<long long>(micros));
  return out;
}

bool may_take_lease(const LeaseRecord& record, const std::string& identity, Clock::time_point observed,
                    Clock::time_point now) {
  if (record.holder.empty() || record.holder == identity) return true;
  return now >= observed + std::chrono::seconds(record.duration_seconds);
}

namespace {

LeaseRecord read_record(simdjson::dom::element lease) {
  LeaseRecord r;
  std::string_view s;
  if (lease.at_pointer("/spec/holderIdentity").get_string().get(s) == simdjson::SUCCESS) r.holder = std::string(s);
  if (lease.at_pointer("/spec/acquireTime").get_string().get(s) == simdjson::SUCCESS) r.acquire_time = std::string(s);
  if (lease.at_pointer("/spec/renewTime").get_string().get(s) == simdjson::SUCCESS) r.renew_time = std::string(s);
  if (lease.at_pointer("/metadata/resourceVersion").get_string().get(s) == simdjson::SUCCESS)
    r.resource_version = std::string(s);
  int64_t n = 0;
  if (lease.at_pointer("/spec/leaseDurationSeconds").get_int64().get(n) == simdjson::SUCCESS) r.duration_seconds = n;
  if (lease.at_pointer("/spec/leaseTransitions").get_int64().get(n) == simdjson::SUCCESS) r.transitions = n;
  return r;
}

std::string lease_json(const LeaderElectionOptions& o, const LeaseRecord& r) {
  json::JsonWriter out;
  out.begin_object().field("apiVersion", "coordination.k8s.io/v1").field("kind", "Lease");
  out.key("metadata").begin_object().field("name", o.name).field("namespace", o.namespace_name);
  if (!r.resource_version.empty()) out.field("resourceVersion", r.resource_version);
  out.end_object().key("spec").begin_object().field("holderIdentity", r.holder);
  out.field("leaseDurationSeconds", r.duration_seconds).field("leaseTransitions", r.transitions);
  if (!r.acquire_time.empty()) out.field("acquireTime", r.acquire_time);
  if (!r.renew_time.empty()) out.field("renewTime", r.renew_time);
  return out.end_object().end_object().take();
}

}  // namespace

LeaderElection::Attempt LeaderElection::try_acquire_or_renew() {
  const std::string collection = "/apis/coordination.k8s.io/v1/namespaces/" + options_.namespace_name + "/leases";
  const std::string now_text = micro_time_now();
  LeaseRecord mine;
  mine.holder = options_.identity;
  mine.duration_seconds = options_.lease_duration.count();
  mine.acquire_time = mine.renew_time = now_text;
  Response got = api_.request("GET", collection + "/" + options_.name);
  if (got.status == 404) {
    Response created = api_.request("POST", collection, lease_json(options_, mine));
    if (!created.ok()) {
      if (created.status == 409) return Attempt::HeldByAnother;  // another candidate created it first
      on_problem_("create Lease " + options_.namespace_name + "/" + options_.name + ": " + created.describe());
      return Attempt::Failed;
    }
    observed_ = mine;
    observed_at_ = Clock::now();
    return Attempt::Holds;
  }
  if (!got.ok()) {
    on_problem_("get Lease " + options_.namespace_name + "/" + options_.name + ": " + got.describe());
    return Attempt::Failed;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element lease;
  if (parser.parse(got.body).get(lease) != simdjson::SUCCESS) return Attempt::Failed;
  const LeaseRecord seen = read_record(lease);
  if (!seen.same_as(observed_)) {
    observed_ = seen;
    observed_at_ = Clock::now();
  }
  if (!may_take_lease(seen, options_.identity, observed_at_, Clock::now())) return Attempt::HeldByAnother;
  mine.resource_version = seen.resource_version;
  if (seen.holder == options_.identity) {
    mine.acquire_time = seen.acquire_time;
    mine.transitions = seen.transitions;
  } else {
    mine.transitions = seen.transitions + 1;
  }
  Response updated = api_.request("PUT", collection + "/" + options_.name, lease_json(options_, mine));
  if (!updated.ok()) {
    if (updated.status == 409) return Attempt::HeldByAnother;  // another candidate wrote first
    on_problem_("update Lease " + options_.namespace_name + "/" + options_.name + ": " + updated.describe());
    return Attempt::Failed;
  }
  simdjson::dom::element written;
  if (parser.parse(updated.body).get(written) == simdjson::SUCCESS) observed_ = read_record(written);
  observed_at_ = Clock::now();
  return Attempt::Holds;
}

void LeaderElection::set_leading(bool leading) {
  if (leading_.exchange(leading) != leading && on_change_) on_change_(leading);
}

void LeaderElection::release() {
  LeaseRecord empty = observed_;
  empty.holder.clear();
  empty.duration_seconds = 1;
  empty.renew_time = empty.acquire_time = micro_time_now();
  api_.request("PUT", "/apis/coordination.k8s.io/v1/namespaces/" + options_.namespace_name + "/leases/" + options_.name,
               lease_json(options_, empty), kJson, std::chrono::seconds(2));
}

void LeaderElection::run(const std::atomic<bool>& stop) {
  auto last_renewal = Clock::now();
  while (!stop.load()) {
    const Attempt attempt = try_acquire_or_renew();
    if (attempt == Attempt::Holds) {
      last_renewal = Clock::now();
      set_leading(true);
    } else if (attempt == Attempt::HeldByAnother || Clock::now() - last_renewal > options_.renew_deadline) {
      // A holder that cannot renew stops before its lease can run out, so that two never lead at once.
      set_leading(false);
    }
    if (!sleep_unless_stopped(options_.retry_period, stop)) break;
  }
  if (leading_.load()) {
    set_leading(false);
    release();
  }
}

}  // namespace wm::kube
