#include "controllers/cluster_side.h"

#include "controllers/cluster_metrics.h"
#include "controllers/karta_source.h"
#include "controllers/node_watch.h"
#include "controllers/pod_groups.h"
#include "controllers/reference_watch.h"
#include "controllers/webhook_rules.h"
#include "controllers/workload_demand.h"
#include "kube/client.h"
#include "kube/discovery.h"
#include "kube/leader_election.h"

namespace wm::controllers {

struct ClusterSide::Parts {
  std::unique_ptr<kube::Api> api;
  std::unique_ptr<kube::Discovery> discovery;
  std::unique_ptr<EventRecorder> events;
  std::unique_ptr<KartaSource> kartas;
  std::unique_ptr<PodGroupController> pod_groups;
  std::unique_ptr<ReferenceWatch> references;
  std::unique_ptr<NodeWatch> nodes;
  std::unique_ptr<WebhookRules> webhook_rules;
  std::unique_ptr<WorkloadDemandWatch> demand;
  std::unique_ptr<kube::LeaderElection> election;
};

ClusterSide::ClusterSide(ClusterOptions options, policy::StateStore& state, Metrics& metrics, const Logger& log)
    : options_(std::move(options)), state_(state), metrics_(metrics), log_(log) {}

ClusterSide::~ClusterSide() { stop(); }

Result<void> ClusterSide::start() {
  auto client_made = kube::Client::make(options_.config);
  if (!client_made) return client_made.failure();
  return start(std::move(*client_made));
}

Result<void> ClusterSide::start(std::unique_ptr<kube::Api> api) {
  auto parts = std::make_unique<Parts>();
  parts->api = std::move(api);
  kube::Api& client = *parts->api;
  parts->discovery = std::make_unique<kube::Discovery>(client);
  declare_cluster_metrics(metrics_);
  parts->events = std::make_unique<EventRecorder>(client, options_.identity, log_);
  const ClusterContext cluster{client, *parts->discovery, state_, metrics_, log_, *parts->events};
  if (options_.kartas) parts->kartas = std::make_unique<KartaSource>(cluster);
  // Every replica admits, so every replica holds the referenced objects.
  parts->references = std::make_unique<ReferenceWatch>(cluster);
  parts->nodes = std::make_unique<NodeWatch>(cluster);
  if (options_.pod_groups) parts->pod_groups = std::make_unique<PodGroupController>(cluster);
  if (options_.workload_metrics) parts->demand = std::make_unique<WorkloadDemandWatch>(cluster);
  // A Workflow created before its WorkflowTemplate was held gets its PodGroups once the template is; a workload's
  // demand is counted again with what it refers to.
  parts->references->on_change([pod_groups = parts->pod_groups.get(), demand = parts->demand.get()] {
    if (pod_groups) pod_groups->references_changed();
    if (demand) demand->references_changed();
  });
  if (!options_.webhook_configuration.empty()) {
    const std::string base = "/apis/admissionregistration.k8s.io/v1/";
    parts->webhook_rules = std::make_unique<WebhookRules>(
        cluster, std::vector<std::string>{base + "mutatingwebhookconfigurations/" + options_.webhook_configuration,
                                          base + "validatingwebhookconfigurations/" + options_.webhook_configuration});
  }
  parts->election = std::make_unique<kube::LeaderElection>(
      client, kube::LeaderElectionOptions{options_.lease_namespace, options_.lease_name, options_.identity},
      [this](bool leading) {
        leading_ = leading;
        metrics_.set_gauge(kLeaderMetric, {}, leading ? 1 : 0);
        log_.log(LogLevel::Info,
                 leading ? "leading: this replica writes PodGroups and Karta statuses"
                         : "not leading: another replica writes",
                 {{"identity", options_.identity}});
        if (parts_->kartas) parts_->kartas->leadership_changed(leading);
        if (parts_->pod_groups) parts_->pod_groups->leadership_changed(leading);
      },
      [this](const std::string& problem) {
        log_.log(LogLevel::Warn, "leader election", {{"problem", problem}});
      });
  parts_ = std::move(parts);
  metrics_.set_gauge(kLeaderMetric, {}, 0);
  log_.log(LogLevel::Info, "talking to the cluster",
           {{"server", options_.config.server()},
            {"via", options_.config.source},
            {"identity", options_.identity},
            {"lease", options_.lease_namespace + "/" + options_.lease_name}});
  start_threads();
  return {};
}

void ClusterSide::start_threads() {
  if (parts_->kartas) {
    threads_.emplace_back([this] { parts_->kartas->watch(stop_); });
    threads_.emplace_back([this] { parts_->kartas->write_statuses(stop_, leading_); });
  }
  if (parts_->pod_groups) {
    threads_.emplace_back([this] { parts_->pod_groups->watch(stop_); });
    for (int i = 0; i < PodGroupController::kReconcileWorkers; ++i)
      threads_.emplace_back([this] { parts_->pod_groups->reconcile(stop_, leading_); });
  }
  if (parts_->demand) {
    threads_.emplace_back([this] { parts_->demand->watch(stop_); });
    threads_.emplace_back([this] { parts_->demand->publish(stop_); });
  }
  threads_.emplace_back([this] { parts_->references->run(stop_); });
  threads_.emplace_back([this] { parts_->nodes->run(stop_); });
  if (parts_->webhook_rules) threads_.emplace_back([this] { parts_->webhook_rules->run(stop_, leading_); });
  threads_.emplace_back([this] { parts_->election->run(stop_); });
}

void ClusterSide::stop() {
  stop_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

}  // namespace wm::controllers
