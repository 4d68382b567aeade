// What the controllers' unit tests share: a live state from a policy text, a workload as admission left it, and a
// cluster context over a fake API server.
#pragma once

#include <memory>
#include <string>

#include "controllers/cluster_context.h"
#include "controllers/events.h"
#include "kube/discovery.h"
#include "policy/state_store.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "tests/support/fake_api.h"

namespace wm::test {

// A StateStore loaded from `policy_text` (written to a temporary file) and the built-in catalog.
std::unique_ptr<policy::StateStore> state_with_policy(const std::string& policy_text, const std::string& file_name);

// The first object of the manifest at `path` (relative to the corpus), as admission under `profile` leaves it for the
// cluster side: in `namespace_name`, with a uid, the profile label and the queue annotation.
std::string admitted_workload(const std::string& corpus_path, const std::string& profile,
                              const std::string& namespace_name = "team-a", const std::string& uid = "uid-1",
                              const std::string& queue = "q1");

// The parts a controller works with, over `api`.
struct FakeCluster {
  explicit FakeCluster(std::unique_ptr<policy::StateStore> state_store)
      : state(std::move(state_store)), discovery(api), events(api, "test", log) {}
  controllers::ClusterContext context() { return {api, discovery, *state, metrics, log, events}; }
  FakeApi api;
  std::unique_ptr<policy::StateStore> state;
  kube::Discovery discovery;
  Metrics metrics;
  Logger log{LogLevel::Error};
  controllers::EventRecorder events;
};

}  // namespace wm::test
