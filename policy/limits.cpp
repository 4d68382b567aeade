#include "policy/limits.h"

#include <algorithm>

#include "mapper/view/resources.h"

namespace wm::policy {

namespace {

std::string quantity_text(const std::string& resource, const view::Quantity& q) {
  return q.str(view::is_byte_resource(resource));
}

std::string scope(const LimitSubject& subject) { return "the limit for namespace " + subject.namespace_name; }

// Each pod template that stands for pods (not a logical component), with its "component/instance" name.
template <class Each>
void for_each_pod_template(const view::WorkloadView& view, Each each) {
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      if (i.shape != view::PodShape::Logical) each(i, c.name + "/" + i.id);
}

}  // namespace

void check_resource_totals(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  const view::WorkloadView& view = subject.view;
  for (const auto& [resource, limit] : limits.resources) {
    auto it = view.total_requests.find(resource);
    if (it == view.total_requests.end() || it->second <= limit) continue;
    std::string parts;
    for (const auto& c : view.components)
      for (const auto& i : c.instances) {
        auto per_pod = i.pod_requests.find(resource);
        if (per_pod == i.pod_requests.end() || i.pods == 0) continue;
        if (!parts.empty()) parts += ", ";
        parts += i.id + " " + std::to_string(i.pods) + "\xC3\x97" + quantity_text(resource, per_pod->second);
      }
    violations.push_back(subject.who + " asks for " + quantity_text(resource, it->second) + " " + resource +
                         " across " + std::to_string(view.total_pods) + " pods (" + parts + "); " + scope(subject) +
                         " is " + quantity_text(resource, limit));
  }
}

void check_uncounted_devices(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (limits.resources.empty()) return;
  for (const auto& u : subject.view.uncounted_devices) {
    std::string limited;
    for (const auto& [resource, limit] : limits.resources)
      if (u.resources.empty() || std::find(u.resources.begin(), u.resources.end(), resource) != u.resources.end())
        limited += (limited.empty() ? "" : ", ") + resource;
    if (!limited.empty())
      violations.push_back(subject.who + ": " + u.what + "; so its devices cannot be held to " + scope(subject) +
                           " on " + limited);
  }
}

void check_unresolved_references(const Limits& limits, const LimitSubject& subject,
                                 std::vector<std::string>& violations) {
  if (limits.resources.empty() && !limits.max_pods) return;
  std::string limited = limits.max_pods ? "pods" : "";
  for (const auto& [resource, limit] : limits.resources) limited += (limited.empty() ? "" : ", ") + resource;
  for (const auto& u : subject.view.unresolved_references)
    violations.push_back(subject.who + ": " + u + "; so its pods cannot be held to " + scope(subject) + " on " +
                         limited);
}

void check_max_pods(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (limits.max_pods && subject.view.total_pods > *limits.max_pods)
    violations.push_back(subject.who + " has " + std::to_string(subject.view.total_pods) + " pods; " + scope(subject) +
                         " is " + std::to_string(*limits.max_pods) + " pods");
}

void check_queue_named(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (limits.require_queue && subject.queue.empty())
    violations.push_back(subject.who + " names no queue" +
                         (subject.queue_label ? ": set the label " + *subject.queue_label + " on it" : std::string()));
}

void check_allowed_schedulers(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (limits.allowed_schedulers.empty()) return;
  const auto& allowed = limits.allowed_schedulers;
  for_each_pod_template(subject.view, [&](const view::InstanceView& i, const std::string& where) {
    if (!i.scheduler_name || std::find(allowed.begin(), allowed.end(), *i.scheduler_name) != allowed.end()) return;
    std::string names;
    for (const auto& s : allowed) names += (names.empty() ? "" : ", ") + s;
    violations.push_back(subject.who + ": pod template " + where + " uses scheduler \"" + *i.scheduler_name +
                         "\"; allowed in namespace " + subject.namespace_name + ": " + names);
  });
}

void check_scheduler_override(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (!limits.forbid_scheduler_override || !subject.profile_scheduler) return;
  const std::string& scheduler = *subject.profile_scheduler;
  for_each_pod_template(subject.view, [&](const view::InstanceView& i, const std::string& where) {
    if (i.scheduler_name && *i.scheduler_name != scheduler)
      violations.push_back(subject.who + ": pod template " + where + " sets schedulerName \"" + *i.scheduler_name +
                           "\"; namespace " + subject.namespace_name + " is scheduled by " + scheduler +
                           ": remove the field");
  });
}

void check_requests_with_gpus(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations) {
  if (!limits.require_requests_with_gpus) return;
  const simdjson::dom::element root = subject.view.document(subject.document).root();
  for_each_pod_template(subject.view, [&](const view::InstanceView& i, const std::string& where) {
    const std::optional<std::string> at = i.pod_spec_location();
    simdjson::dom::element pod_spec;
    if (!at || root.at_pointer(*at).get(pod_spec) != simdjson::SUCCESS) return;
    for (const auto& name : view::gpu_containers_missing_requests(pod_spec, {"cpu", "memory"}))
      violations.push_back(subject.who + ": container " + name + " in " + where +
                           " asks for GPUs in its limits but does not request cpu and memory");
  });
}

std::vector<std::string> limit_violations(const Limits& limits, const LimitSubject& subject) {
  std::vector<std::string> violations;
  for (LimitCheck check : kLimitChecks) check(limits, subject, violations);
  return violations;
}

}  // namespace wm::policy
