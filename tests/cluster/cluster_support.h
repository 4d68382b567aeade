// The real control plane of tests/cluster/up.sh, seen from a test: kubectl against it, opted-in namespaces,
// and the webhook registered as a user registers it (manifests/ rendered with kustomize, only clientConfig
// replaced with a URL to a local `workload-map serve`).
#pragma once

#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kube/client.h"
#include "tests/support/server_process.h"

namespace wm::test {

struct CommandResult {
  int status = -1;
  std::string out, err;
};
// Runs argv (no shell), with `input` on its standard input.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& input = "");

class Cluster {
 public:
  // The control plane the CTest fixture started (WM_CLUSTER_DIR); fails the test if there is none.
  static const Cluster& get();
  CommandResult kubectl(std::vector<std::string> args, const std::string& input = "") const;
  // kubectl ... -o json, parsed; fails the test if kubectl fails.
  simdjson::dom::element get_json(simdjson::dom::parser& parser, const std::vector<std::string>& args) const;
  const std::string& dir() const { return dir_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  // A client of its API server, as the webhook's cluster side makes one (for many requests without a kubectl each);
  // fails the test if it cannot be made.
  std::unique_ptr<kube::Client> client() const;

 private:
  std::string dir_, kubeconfig_, kubectl_;
};

// A fresh namespace labelled workload-map.io/enabled=true (the webhooks' opt-in). With
// `for_pods`, waits for its default service account (the ServiceAccount admission plugin needs it).
std::string make_namespace(const std::string& prefix, bool for_pods = false);
// The same with exactly this name (for manifests that name their namespace).
void create_namespace(const std::string& name, bool for_pods = false);

// Renders manifests/<overlay> with `kubectl kustomize`, points both webhooks' clientConfig at
// https://127.0.0.1:<port><path> with `ca_file` as caBundle, applies them, and waits until the API server
// calls the webhook (a server-side dry run of a Pod comes back edited): the webhook must be up.
void register_webhooks(const std::string& overlay, uint16_t port, const std::string& ca_file);
void unregister_webhooks();

// `workload-map serve` with a policy file of its own, registered with the API server through
// manifests/<overlay>. The registration stays when it goes: the next one replaces it.
class RegisteredWebhook {
 public:
  // `extra_args` are added to `serve` (--kubeconfig FILE, say).
  explicit RegisteredWebhook(const std::string& policy_yaml, const std::string& overlay = "base",
                             std::vector<std::string> extra_args = {});
  // Rewrites the policy file; the server reloads it by itself within a second or two.
  void set_policy(const std::string& policy_yaml);
  ServerProcess& server() { return server_; }
  // One counter of workload_map_requests_total, from /metrics, over every operation.
  long long requests(const std::string& endpoint, const std::string& kind, const std::string& outcome);

 private:
  std::string policy_file_;
  ServerProcess server_;
};

// One series of a webhook's /metrics (a name with its labels, as printed), or -1 when it has none.
long long metric(uint16_t port, const std::string& series);
// Whether a webhook's /readyz answers 200.
bool ready(uint16_t port);

// Repeats `check` until it is true or `timeout` passes; returns its last answer.
bool eventually(const std::function<bool()>& check, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(200));

}  // namespace wm::test
