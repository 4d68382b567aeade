// Keeps the webhook configurations routing every kind the catalog knows: a Karta for a new CRD makes the API server
// send that CRD's objects here, with no edit of the configurations by hand. Only adds rules (a kind that leaves the
// catalog keeps its rule: the webhook answers for it as for any unknown kind), and only the leader writes, with the
// configuration's resourceVersion as a precondition.
#pragma once

#include <simdjson.h>

#include <atomic>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/cluster_context.h"
#include "controllers/events.h"
#include "kube/api.h"
#include "kube/discovery.h"
#include "mapper/catalog/catalog.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace wm::controllers {

// What to route and what to add, without I/O (tests/unit/controllers/webhook_rules_test.cpp).
using GroupResource = std::pair<std::string, std::string>;  // (API group, plural)
struct RoutedResources {
  std::set<GroupResource> resources;  // of every catalog kind the API server serves
  bool complete = true;               // false: some kind is not served yet (looked for again on the next round)
};
RoutedResources resources_to_route(const catalog::Catalog& catalog, const kube::FindResource& find);

// The JSON Patch that adds a rule (CREATE and UPDATE) for each of `wanted` that no rule of a webhook of `config`
// routes, with the configuration's resourceVersion as a precondition; `added` names them, empty when none is missing.
struct RulesPatch {
  std::string patch;
  std::string added;  // "jobsets.jobset.x-k8s.io, ..."
};
RulesPatch missing_rules_patch(simdjson::dom::element config, const std::set<GroupResource>& wanted);

class WebhookRules {
 public:
  // `configurations`: API paths of the webhook configurations to keep in step.
  WebhookRules(const ClusterContext& cluster, std::vector<std::string> configurations)
      : cluster_(cluster), configurations_(std::move(configurations)) {}
  // While `leading`: on every catalog change, and every minute to repair an edit, until `stop`.
  void run(const std::atomic<bool>& stop, const std::atomic<bool>& leading);
  // One round: reads each configuration and adds what is missing. Fails when something is worth another round (a
  // kind not served yet, a read or write that failed); public so that unit tests drive it over a fake API server.
  Result<void> sync();

 private:
  ClusterContext cluster_;
  std::vector<std::string> configurations_;
};

}  // namespace wm::controllers
