// The cluster read once for `get` and `describe` (live/snapshot.h): the API server of a kubeconfig's current context
// (--kubeconfig, else $KUBECONFIG, else ~/.kube/config) or of the pod this runs in; the built-in catalog with the
// cluster's accepted Karta objects over it and --definitions over both, as the webhook holds them; every kind the
// catalog knows listed page by page, under the policy the installed webhook runs (its ConfigMap workload-map-policy,
// which manifests/base and the chart make) unless --policy names one in one namespace or all, with the pods, the
// objects the profiles' schedulers record gangs on, and what the webhook's cluster side holds (referenced objects, DRA
// claims, queues). A kind the user may not list is a note; the rest is still read.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/api.h"
#include "live/snapshot.h"
#include "policy/admission_state.h"

namespace wm::cli {

struct ClusterOptions {
  std::string kubeconfig, namespace_name, policy_file;
  std::string policy_namespace = "workload-map";  // where the installed webhook's policy ConfigMap is
  bool in_cluster = false, all_namespaces = false;
  std::vector<std::string> dirs;
  std::vector<std::string> files;  // -f: the offline view, of these files' objects (cli/file_api.h)
};
// --kubeconfig, --in-cluster, -f/--filename, -n/--namespace, -A/--all-namespaces, --policy, --policy-namespace,
// --definitions.
void add_cluster_options(CLI::App& command, ClusterOptions& options);

struct ClusterRead {
  policy::AdmissionState state;  // its references are the snapshot's
  live::Snapshot snapshot;
  std::string namespace_name;  // the one read ("" for all)
};
struct ReadExtras {
  bool events = false, nodes = false;  // describe's
};
// Prints what fails (no configuration, no answer, invalid definitions or policy) to stderr and returns nothing.
std::optional<ClusterRead> read_cluster(const ClusterOptions& options, const ReadExtras& extras);
// The same through `api` (a benchmark's fake), `context_namespace` the one read without -n or -A.
std::optional<ClusterRead> read_cluster(kube::Api& api, const ClusterOptions& options, const ReadExtras& extras,
                                        const std::string& context_namespace);

}  // namespace wm::cli
