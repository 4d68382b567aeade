// The scheduler test bed: the control plane of the `schedulers` CTest fixture, with fake GPU nodes
// (tests/cluster/nodes.sh, KWOK) and real schedulers (tests/cluster/scheduler.sh). Every test takes a node pool
// of its own (nodes labelled workload-map.io/node-pool=POOL, which its workloads select), so that tests never
// compete for GPUs. Nothing here binds a pod or writes a PodGroup: the schedulers and the webhook do.
#pragma once

#include <simdjson.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

namespace wm::test {

// A pool name of its own for one test (`prefix`-<pid>-<n>), as make_namespace() makes namespaces.
std::string node_pool(const std::string& prefix);
// tests/cluster/nodes.sh: `count` Ready nodes with `gpus` nvidia.com/gpu each, in pool `pool`, with `labels` (K=V).
void add_nodes(const std::string& pool, int count, int gpus, const std::vector<std::string>& labels = {});
// tests/cluster/scheduler.sh: starts the scheduler NAME (default, coscheduling, volcano, kueue, yunikorn) once.
void start_scheduler(const std::string& name);
// tests/cluster/operator.sh: starts an operator that is not always in the bed (kuberay) once.
void start_operator(const std::string& name);

// The shipped policy (manifests/base/policy.yaml) with its rules replaced by one: every kind in `ns` under
// `profile`, with queue `queue` (none: the profile's default queue, its `queues.default`), failing closed.
std::string policy_for(const std::string& ns, const std::string& profile, const std::string& queue = "default");
// The webhook as users run it beside a cluster: registered through manifests/base, and talking to the API server
// (its cluster side writes the profile's PodGroups).
std::vector<std::string> cluster_side_args(const std::string& identity);

// A JobSet whose replicated jobs are given as (name, pods) pairs, one Job each, each pod asking for `gpus`
// GPUs and selecting `pool`. `scheduler` sets schedulerName by hand (empty: leave it to the webhook or the default).
struct JobSetShape {
  std::string name;
  std::vector<std::pair<std::string, int>> jobs;
  int gpus = 4;
  std::string pool;
  std::string scheduler;
};
std::string jobset_yaml(const JobSetShape& shape);

struct PodCounts {
  int total = 0, bound = 0, running = 0, succeeded = 0;
};
// Each gang's minimum under `profile`, copies expanded, as `inspect --profile` gives it; with `whole_workload`, a
// workload of one gang counts every pod it starts (Kueue admits pods outside the gang too: a RayJob's submitter).
std::vector<long long> profile_gangs(const ParsedObject& object, const std::string& profile,
                                     bool whole_workload = false);
// The minMember of the one gang `inspect --profile PROFILE` gives the one object in `yaml`.
long long profile_min_member(const std::string& yaml, const std::string& profile);

// The pods in `ns` that carry `selector` (a label selector).
PodCounts count_pods(const std::string& ns, const std::string& selector);
// Asks KWOK to finish every pod in `ns` matching `selector` (Succeeded, exit 0).
void complete_pods(const std::string& ns, const std::string& selector);
// The pods' and scheduler's state, for a failing test's message.
std::string describe(const std::string& ns);

// `kubectl apply -f -` in `ns`; fails the test on error.
void kubectl_apply(const std::string& ns, const std::string& yaml);

// `workload-map get` (or describe) against the bed, as a user runs it (--kubeconfig), with ARGS, `-n ns -o json` and
// the webhook's policy (the profile its rules pick is the one whose gang objects are read); fails the test on error.
simdjson::dom::element live_json(simdjson::dom::parser& parser, const std::string& ns, const std::string& policy_yaml,
                                 std::vector<std::string> args);
// What `get KIND/NAME` must say of a workload: its phase, pods expected and scheduled, GPUs (-1: not checked), and
// how its gang summary begins ("0/5").
struct LiveExpectation {
  std::string phase;
  long long pods = 0, scheduled = 0, gpus = -1;
  std::string gang;
  bool describe = true;  // ask `describe` too
  // A webhook serving with --workload-metrics: its gauges must count the workload as `get` shows it (within seconds).
  uint16_t metrics_port = 0;
};
// Checks `get` (and the webhook's workload metrics when a port is given), then (unless told not to) asks `describe` and
// checks that every word it quotes from the scheduler's gang objects is in the object as the API server holds it;
// returns what describe says of the workload (the gang objects' words, then the reasons, one per line).
std::string check_live(const std::string& ns, const std::string& policy_yaml, const std::string& kind,
                       const std::string& name, const LiveExpectation& expected);

// Holds while `check` stays true for all of `duration` (checked every second); false at its first failure.
bool stays(const std::function<bool()>& check, std::chrono::seconds duration);

}  // namespace wm::test
