#include "tests/bench/scale/pod_group_watch.h"

#include <simdjson.h>

#include <algorithm>

#include "kube/reflector.h"

namespace wm::bench {

PodGroupWatch::PodGroupWatch(kube::Client& client, const std::string& path, const std::string& api_version,
                             std::string ns)
    : ns_(std::move(ns)) {
  kube::ReflectorHandlers handlers;
  handlers.replaced = [this](std::vector<std::string> objects) {
    {
      std::lock_guard lock(mutex_);
      groups_.clear();
    }
    for (const auto& o : objects) apply(o, false);
  };
  handlers.changed = [this](kube::EventType type, const std::string& object) {
    apply(object, type == kube::EventType::Deleted);
  };
  handlers.failed = [](const std::string&) {};  // the reflector retries; a lost PodGroup shows in the counts
  handlers.live = [this] { live_ = true; };
  thread_ = std::thread([this, &client, collection = kube::Collection{path, api_version, "PodGroup", ""},
                         handlers = std::move(handlers)] { kube::Reflector(client, collection, handlers).run(stop_); });
}

PodGroupWatch::~PodGroupWatch() {
  stop_ = true;
  thread_.join();
}

void PodGroupWatch::apply(const std::string& json, bool deleted) {
  const auto now = Clock::now();
  simdjson::dom::parser parser;
  simdjson::dom::element o;
  if (parser.parse(json).get(o) != simdjson::SUCCESS) return;
  std::string_view ns, name, owner;
  if (o.at_pointer("/metadata/namespace").get(ns) != simdjson::SUCCESS || ns != ns_) return;
  if (o.at_pointer("/metadata/name").get(name) != simdjson::SUCCESS) return;
  if (o.at_pointer("/metadata/ownerReferences/0/name").get(owner) != simdjson::SUCCESS) owner = {};
  int64_t min_member = 0;
  if (o.at_pointer("/spec/minMember").get(min_member) != simdjson::SUCCESS) min_member = 0;
  std::lock_guard lock(mutex_);
  if (deleted) {
    groups_.erase(std::string(name));
    return;
  }
  groups_[std::string(name)] = {std::string(owner), min_member};
  if (!owner.empty()) first_seen_.try_emplace(std::string(owner), now);
}

bool PodGroupWatch::first_seen(const std::string& owner, Clock::time_point& at) const {
  std::lock_guard lock(mutex_);
  auto it = first_seen_.find(owner);
  if (it == first_seen_.end()) return false;
  at = it->second;
  return true;
}

std::vector<long long> PodGroupWatch::min_members(const std::string& owner) const {
  std::lock_guard lock(mutex_);
  std::vector<long long> out;
  for (const auto& [name, group] : groups_)
    if (group.owner == owner) out.push_back(group.min_member);
  std::sort(out.begin(), out.end());
  return out;
}

size_t PodGroupWatch::owners_seen() const {
  std::lock_guard lock(mutex_);
  return first_seen_.size();
}

size_t PodGroupWatch::pod_groups() const {
  std::lock_guard lock(mutex_);
  return groups_.size();
}

size_t PodGroupWatch::unowned() const {
  std::lock_guard lock(mutex_);
  return std::count_if(groups_.begin(), groups_.end(), [](const auto& g) { return g.second.owner.empty(); });
}

}  // namespace wm::bench
