// Keeps the webhook configurations routing every kind the catalog knows: a Karta for a new CRD makes the API server
// send that CRD's objects here, with no edit of the configurations by hand. Only adds rules (a kind that leaves the
// catalog keeps its rule: the webhook answers for it as for any unknown kind), and only the leader writes, with the
// configuration's resourceVersion as a precondition.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/metrics.h"
#include "controllers/cluster_context.h"
#include "controllers/events.h"
#include "kube/api.h"
#include "kube/discovery.h"
#include "policy/state_store.h"

namespace wm::controllers {

class WebhookRules {
 public:
  // `configurations`: API paths of the webhook configurations to keep in step.
  WebhookRules(const ClusterContext& cluster, std::vector<std::string> configurations)
      : cluster_(cluster), configurations_(std::move(configurations)) {}
  // While `leading`: on every catalog change, and every minute to repair an edit, until `stop`.
  void run(const std::atomic<bool>& stop, const std::atomic<bool>& leading);

 private:
  bool sync();  // false: something to retry (a kind not served yet, a write that failed)

  ClusterContext cluster_;
  std::vector<std::string> configurations_;
};

}  // namespace wm::controllers
