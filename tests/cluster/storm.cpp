#include "tests/cluster/storm.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "kube/client.h"
#include "kube/config.h"
#include "tests/cluster/scheduler_bed.h"

namespace wm::test {

namespace {

constexpr int kSenders = 4;

// The kinds of the mix, as kubectl names them.
const char* const kResources[] = {"jobsets.jobset.x-k8s.io", "pytorchjobs.kubeflow.org", "jobs.batch"};

}  // namespace

Storm::Storm(const std::string& ns, int count, double per_second)
    : ns_(ns), workloads_(bench::workload_mix(count, ns, "no-nodes")), statuses_(workloads_.size(), 0) {
  auto config = kube::config_from_kubeconfig(Cluster::get().kubeconfig());
  INFO(config.error());
  REQUIRE(config);
  auto made = kube::Client::make(*config);
  INFO(made.error());
  REQUIRE(made);
  std::shared_ptr<kube::Client> client = std::move(*made);
  auto next = std::make_shared<std::atomic<size_t>>(0);
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < kSenders; ++s)
    senders_.emplace_back([this, client, next, start, per_second] {
      for (size_t i; (i = (*next)++) < workloads_.size();) {
        std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                  std::chrono::duration<double>(static_cast<double>(i) / per_second)));
        ++sent_;
        statuses_[i] = client->request("POST", workloads_[i].resource_path, workloads_[i].json).status;
      }
    });
}

Storm::~Storm() { finish(); }

void Storm::wait_sent(size_t n) const {
  while (sent_.load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void Storm::finish() {
  for (auto& t : senders_) t.join();
  senders_.clear();
}

size_t Storm::accepted() const {
  size_t n = 0;
  for (int s : statuses_) n += s == 201;
  return n;
}

Storm::Settled Storm::check(const std::string& profile, bool unedited_allowed) const {
  Settled out;
  const Cluster& c = Cluster::get();
  std::map<std::string, const bench::Workload*> by_name;
  for (const auto& w : workloads_) by_name[w.name] = &w;
  std::map<std::string, const bench::Workload*> stored;  // by uid
  std::set<std::string> stored_names;
  simdjson::dom::parser parser;
  auto problem = [&](const std::string& what) {
    if (out.problem.empty()) out.problem = what;
  };
  for (const char* resource : kResources) {
    CommandResult r = c.kubectl({"get", resource, "-n", ns_, "-o", "json"});
    simdjson::dom::element list;
    simdjson::dom::array items;
    if (r.status != 0 || parser.parse(r.out).get(list) || list["items"].get_array().get(items)) {
      problem(std::string("cannot list ") + resource + ": " + r.err);
      return out;
    }
    for (auto item : items) {
      auto it = by_name.find(string_at(item, "/metadata/name"));
      if (it == by_name.end() || string_at(item, "/kind") != it->second->kind) continue;  // a JobSet's own Jobs
      stored_names.insert(it->first);
      // Edited whole or not at all: the profile label, and the profile's scheduler on every pod template.
      const std::string json = simdjson::to_string(item);
      size_t templates = 0, edited = 0;
      for (size_t at = it->second->json.find("\"containers\""); at != std::string::npos;
           at = it->second->json.find("\"containers\"", at + 1))
        ++templates;
      for (size_t at = json.find("\"schedulerName\":\"volcano\""); at != std::string::npos;
           at = json.find("\"schedulerName\":\"volcano\"", at + 1))
        ++edited;
      const bool labelled = string_at(item, "/metadata/labels/workload-map.io~1profile") == profile;
      if (labelled && edited == templates) {
        stored[string_at(item, "/metadata/uid")] = it->second;
      } else if (!labelled && edited == 0 && unedited_allowed) {
        ++out.unedited;  // admitted as sent: its PodGroups must not exist either
      } else {
        problem(it->second->kind + " " + it->first + " is stored with " + std::to_string(edited) + " of " +
                std::to_string(templates) + " templates edited" + (labelled ? "" : ", no profile label"));
      }
    }
  }
  out.stored = stored.size() + out.unedited;
  for (size_t i = 0; i < workloads_.size(); ++i)
    if (statuses_[i] == 201 && !stored_names.count(workloads_[i].name))
      problem(workloads_[i].name + " was created but is not stored");

  CommandResult r = c.kubectl({"get", "podgroups.scheduling.volcano.sh", "-n", ns_, "-o", "json"});
  simdjson::dom::element list;
  simdjson::dom::array items;
  if (r.status != 0 || parser.parse(r.out).get(list) || list["items"].get_array().get(items)) {
    problem("cannot list PodGroups: " + r.err);
    return out;
  }
  std::map<std::string, std::vector<long long>> made;  // by owner uid
  for (auto item : items) {
    ++out.pod_groups;
    const std::string owner = string_at(item, "/metadata/ownerReferences/0/uid");
    if (!stored.count(owner)) problem("PodGroup " + string_at(item, "/metadata/name") + " has no workload");
    int64_t min_member = 0;
    if (item.at_pointer("/spec/minMember").get(min_member) != simdjson::SUCCESS) min_member = -1;
    made[owner].push_back(min_member);
  }
  for (const auto& [uid, workload] : stored) {
    std::vector<long long> expected = profile_gangs(parse_json(workload->json), profile);
    std::vector<long long> got = made.count(uid) ? made.at(uid) : std::vector<long long>{};
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    if (got != expected)
      problem(workload->kind + " " + workload->name + " has " + std::to_string(got.size()) + " PodGroups, " +
              std::to_string(expected.size()) + " expected");
  }
  out.ok = out.problem.empty();
  return out;
}

Storm::Settled Storm::settle(const std::string& profile, bool unedited_allowed, std::chrono::seconds timeout,
                             std::chrono::milliseconds& took) const {
  const auto start = std::chrono::steady_clock::now();
  Settled last;
  eventually([&] { return (last = check(profile, unedited_allowed)).ok; }, timeout, std::chrono::seconds(1));
  took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  return last;
}

}  // namespace wm::test
