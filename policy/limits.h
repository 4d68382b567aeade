// A rule's limits, as a list of small checks over one workload's view: each says, in the words of the denial, how
// the workload breaks one limit. The reviewer (webhook/reviewer.h) runs them on /validate; each has its unit test
// (tests/unit/policy/limits_test.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json/object_document.h"
#include "mapper/view/workload_view.h"
#include "policy/policy.h"

namespace wm::policy {

// What the checks read of one admission.
struct LimitSubject {
  const view::WorkloadView& view;
  json::ObjectDocument& document;  // the object the view's locations point into
  std::string who;                 // "JobSet team-a/train", as messages name a workload
  std::string namespace_name;
  std::string_view queue;                               // the queue admission resolved; empty when none
  const std::optional<std::string>& queue_label;        // the rule's label that names a queue
  const std::optional<std::string>& profile_scheduler;  // the scheduler the rule's profile sets
};

using LimitCheck = void (*)(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);

// Each resource's total against its limit, with each pod template's part in the message.
void check_resource_totals(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
void check_max_pods(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
void check_queue_named(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
// A schedulerName a pod template sets must be one of the allowed ones.
void check_allowed_schedulers(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
// A schedulerName a pod template sets must be the profile's.
void check_scheduler_override(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
// Containers that ask for GPUs in their limits must request cpu and memory.
void check_requests_with_gpus(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
// Devices that DRA claims ask for but that cannot be counted (mapper/view/claims.h) must not slip past a limit on a
// resource they could count as; those that could be of any resource, past any resource limit.
void check_uncounted_devices(const Limits& limits, const LimitSubject& subject, std::vector<std::string>& violations);
// Pods held by a referenced object that is not known (an Argo Workflow's WorkflowTemplate) must not slip past any
// resource or pod limit.
void check_unresolved_references(const Limits& limits, const LimitSubject& subject,
                                 std::vector<std::string>& violations);

// Every check, in the order their messages are given.
inline constexpr LimitCheck kLimitChecks[] = {
    check_resource_totals, check_uncounted_devices,  check_unresolved_references, check_max_pods,
    check_queue_named,     check_allowed_schedulers, check_scheduler_override,    check_requests_with_gpus};

std::vector<std::string> limit_violations(const Limits& limits, const LimitSubject& subject);

}  // namespace wm::policy
