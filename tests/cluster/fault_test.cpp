// Faults during a create storm (issue 22): etcd killed, the API server restarted, the leading replica killed, the
// webhook cut from the API server for 30 s. After each, once things settle, every stored workload carries the
// webhook's whole edit and exactly the PodGroups `inspect --profile volcano` gives it, with no orphan; the webhook
// process that lived through it recovered its watches by itself. Each prints how long recovery took. A replica
// killed with admissions in flight is the one fault where the failure policy shows: under the base's Ignore those
// creates are stored as sent (whole, never half edited, and without PodGroups), under fail-closed refused.
// The control plane is this suite's own (the `faults` fixture): these tests break it on purpose.
#include <signal.h>

#include <catch2/catch.hpp>
#include <iostream>
#include <regex>

#include "tests/cluster/cluster_support.h"
#include "tests/cluster/scheduler_bed.h"
#include "tests/cluster/storm.h"
#include "tests/cluster/tcp_proxy.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

using namespace wm::test;
using namespace std::chrono_literals;

namespace {

constexpr int kWorkloads = 90;
constexpr double kPerSecond = 5;
constexpr auto kSettle = 120s;

void restart(const std::string& process, const std::vector<std::string>& how) {
  std::vector<std::string> args = {source_path("tests/cluster/restart.sh"), Cluster::get().dir(), process};
  args.insert(args.end(), how.begin(), how.end());
  CommandResult r = run_command(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
}

bool watches_up(uint16_t port) {
  return metric(port, "workload_map_watch_up{resource=\"jobsets.jobset.x-k8s.io\"}") == 1 &&
         metric(port, "workload_map_watch_up{resource=\"pytorchjobs.kubeflow.org\"}") == 1;
}

// Waits for the storm, then for the cluster to settle; prints the figure and checks what must hold.
void settles(Storm& storm, const std::string& fault, std::chrono::steady_clock::time_point fault_over,
             bool unedited_allowed = false) {
  storm.finish();
  std::chrono::milliseconds took{0};
  const Storm::Settled settled = storm.settle("volcano", unedited_allowed, kSettle, took);
  const auto since_fault =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - fault_over);
  std::cout << "figure: " << fault << ": " << storm.accepted() << " of " << kWorkloads << " creates accepted ("
            << storm.refused() << " refused), " << settled.stored << " stored (" << settled.unedited << " as sent), "
            << settled.pod_groups << " PodGroups; settled " << since_fault.count() << " ms after the fault ended\n";
  INFO(settled.problem);
  CHECK(settled.ok);
  CHECK(settled.stored >= storm.accepted());
}

std::string with_server(const std::string& kubeconfig, const std::string& server) {
  const std::string text = read_file(kubeconfig);
  return write_temp("kubeconfig-" + std::to_string(getpid()) + "-proxied",
                    std::regex_replace(text, std::regex("https://127\\.0\\.0\\.1:[0-9]+"), server));
}

uint16_t api_server_port() {
  std::smatch m;
  const std::string text = read_file(Cluster::get().kubeconfig());
  REQUIRE(std::regex_search(text, m, std::regex("https://127\\.0\\.0\\.1:([0-9]+)")));
  return static_cast<uint16_t>(std::stoi(m[1]));
}

}  // namespace

namespace {

// A process of the control plane stopped a third of the way into a storm and started again (restart.sh's `how`);
// the webhook that lived through it must recover by itself.
void control_plane_restarted(const std::string& label, const std::string& process, const std::vector<std::string>& how,
                             const std::string& fault) {
  const std::string ns = make_namespace(label, true);
  RegisteredWebhook webhook(policy_for(ns, "volcano"), "base", cluster_side_args(label));
  REQUIRE(eventually([&] { return watches_up(webhook.server().port()); }, 30s));
  Storm storm(ns, kWorkloads, kPerSecond);
  storm.wait_sent(kWorkloads / 3);
  restart(process, how);
  settles(storm, fault, std::chrono::steady_clock::now());
  CHECK(webhook.server().running());
  CHECK(eventually([&] { return watches_up(webhook.server().port()); }, 30s));
}

}  // namespace

TEST_CASE("etcd killed during a create storm: once it is back, every workload has its PodGroups and no orphan") {
  control_plane_restarted("fault-etcd", "etcd", {"--kill", "--down", "5"}, "etcd SIGKILL, down 5 s");
}

TEST_CASE("the API server restarted during a create storm: the watches come back and nothing is lost") {
  control_plane_restarted("fault-apiserver", "kube-apiserver", {"--down", "2"},
                          "API server restart (SIGTERM, down 2 s)");
}

namespace {

// A replica of the webhook as the Deployment runs it beside another: the same policy and Lease, its own identity,
// the shipped shutdown delay (shorter: nothing here waits for kube-proxy).
std::unique_ptr<ServerProcess> replica(const std::string& ns, const std::string& policy, const std::string& identity) {
  return std::make_unique<ServerProcess>(std::vector<std::string>{
      "--policy", policy, "--kubeconfig", Cluster::get().kubeconfig(), "--identity", identity, "--lease-namespace",
      "default", "--lease-name", "workload-map-" + ns, "--shutdown-delay-ms", "2000"});
}

// Two replicas behind one address, as a Service puts them, sharing one Lease; the leader is killed a third of the
// way into a storm, with no chance to give the Lease up.
void leader_killed(const std::string& overlay) {
  const bool fail_closed = overlay != "base";
  const std::string ns = make_namespace(fail_closed ? "fault-leader-closed" : "fault-leader", true);
  const std::string policy = write_temp(ns + "-policy.yaml", policy_for(ns, "volcano"));
  auto a = replica(ns, policy, "replica-a"), b = replica(ns, policy, "replica-b");
  TcpProxy service("127.0.0.1", std::vector<uint16_t>{a->port(), b->port()});
  register_webhooks(overlay, service.port(), test_certificates().ca);
  auto leading = [&](ServerProcess& p) { return metric(p.port(), "workload_map_leader") == 1; };
  REQUIRE(eventually([&] { return leading(*a) + leading(*b) == 1; }, 30s));
  ServerProcess& leader = leading(*a) ? *a : *b;
  ServerProcess& other = &leader == a.get() ? *b : *a;
  REQUIRE(eventually([&] { return watches_up(other.port()); }, 30s));

  Storm storm(ns, kWorkloads, kPerSecond);
  storm.wait_sent(kWorkloads / 3);
  REQUIRE(kill(leader.pid(), SIGKILL) == 0);
  const auto killed = std::chrono::steady_clock::now();
  // The endpoints drop the dead pod once its readiness probe fails; until then calls sent there fail.
  std::this_thread::sleep_for(2s);
  service.set_targets({other.port()});
  REQUIRE(eventually([&] { return leading(other); }, 40s, 100ms));
  const auto moved = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed);
  std::cout << "figure: leadership moved " << moved.count() << " ms after the leader's SIGKILL\n";
  // client-go's rule, which kube/leader_election follows: a whole lease duration (15 s) unseen, then the next try
  // (every retry period, 2 s), with room for a busy machine.
  CHECK(moved <= 15s + 2s + 5s);
  settles(storm, "leader SIGKILL, two replicas behind one address, " + overlay, killed, !fail_closed);
  unregister_webhooks();
}

}  // namespace

TEST_CASE("the leading replica killed during a create storm: the other leads within the Lease timings and finishes") {
  leader_killed("base");
}

TEST_CASE("the leading replica killed during a create storm, fail-closed: nothing is stored unedited") {
  leader_killed("overlays/fail-closed");
}

TEST_CASE("the webhook cut from the API server for 30 s during a create storm: admission goes on, PodGroups follow") {
  const std::string ns = make_namespace("fault-cut", true);
  TcpProxy proxy("127.0.0.1", api_server_port());
  std::vector<std::string> args = cluster_side_args("fault-cut");
  args[1] = with_server(Cluster::get().kubeconfig(), "https://127.0.0.1:" + std::to_string(proxy.port()));
  RegisteredWebhook webhook(policy_for(ns, "volcano"), "base", args);
  REQUIRE(eventually([&] { return watches_up(webhook.server().port()); }, 30s));
  Storm storm(ns, kWorkloads, kPerSecond);
  storm.wait_sent(kWorkloads / 3);
  proxy.cut();
  std::this_thread::sleep_for(30s);
  proxy.restore();
  const auto over = std::chrono::steady_clock::now();
  settles(storm, "30 s cut between the webhook and the API server", over);
  CHECK(storm.refused() == 0);  // the API server itself never went away
  CHECK(watches_up(webhook.server().port()));
}

TEST_CASE("a rolling restart of both replicas during a create storm, fail-closed, refuses no create") {
  const std::string ns = make_namespace("fault-rolling", true);
  const std::string policy = write_temp(ns + "-policy.yaml", policy_for(ns, "volcano"));
  auto a = replica(ns, policy, "replica-a"), b = replica(ns, policy, "replica-b");
  TcpProxy service("127.0.0.1", std::vector<uint16_t>{a->port(), b->port()});
  register_webhooks("overlays/fail-closed", service.port(), test_certificates().ca);
  REQUIRE(eventually([&] { return ready(a->port()) && ready(b->port()); }, 30s));

  Storm storm(ns, kWorkloads, kPerSecond);
  storm.wait_sent(kWorkloads / 4);
  const auto started = std::chrono::steady_clock::now();
  for (auto* old : {&a, &b}) {
    ServerProcess& kept = old == &a ? *b : *a;
    auto fresh = replica(ns, policy, old == &a ? "replica-a2" : "replica-b2");
    REQUIRE(eventually([&] { return ready(fresh->port()); }, 30s));
    // As a Deployment's rollout goes: the new pod joins the endpoints once ready; the old one gets SIGTERM, and
    // leaves the endpoints a moment later (kube-proxy's lag), connections it holds staying open meanwhile.
    service.set_targets({kept.port(), (*old)->port(), fresh->port()});
    REQUIRE(kill((*old)->pid(), SIGTERM) == 0);
    std::this_thread::sleep_for(1s);
    service.set_targets({kept.port(), fresh->port()});
    CHECK((*old)->wait_exit(40) == 0);
    *old = std::move(fresh);
  }
  settles(storm, "rolling restart of both replicas, fail-closed", started);
  CHECK(storm.refused() == 0);
  unregister_webhooks();
}
