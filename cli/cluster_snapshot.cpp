#include "cli/cluster_snapshot.h"

#include <cstdlib>
#include <iostream>
#include <map>

#include "base/json/json_read.h"
#include "cli/catalog_options.h"
#include "cli/cluster_reader.h"
#include "cli/file_api.h"
#include "controllers/karta_check.h"
#include "controllers/reference_watch.h"
#include "kube/client.h"
#include "kube/discovery.h"
#include "kube/list.h"
#include "mapper/view/quantity.h"
#include "mapper/view/resources.h"

namespace wm::cli {

namespace {

// The ConfigMap manifests/base and the chart install the policy in, under the key policy.yaml.
constexpr std::string_view kPolicyConfigMap = "workload-map-policy";

Result<kube::Config> cluster_config(const ClusterOptions& o) {
  if (o.in_cluster) return kube::config_in_cluster();
  std::string path = o.kubeconfig;
  if (path.empty() && std::getenv("KUBECONFIG")) path = std::getenv("KUBECONFIG");
  if (path.empty() && std::getenv("HOME")) path = std::string(std::getenv("HOME")) + "/.kube/config";
  // $KUBECONFIG may list several files; the first holds the current context here.
  if (const size_t colon = path.find(':'); colon != std::string::npos) path.resize(colon);
  return kube::config_from_kubeconfig(path);
}

// The cluster's Karta objects that `lint` accepts, over the built-in catalog; --definitions over both.
std::shared_ptr<const catalog::Catalog> cluster_catalog(ClusterReader& reader, const std::vector<std::string>& dirs) {
  yaml::Diagnostics errors;
  catalog::Catalog catalog = catalog::Catalog::embedded(errors);
  reader.queue({"run.ai", {"v1alpha1"}, "Karta", [&](const kube::Resource& r, simdjson::dom::element k) {
                  const std::string name(json::string_at(k, "/metadata/name"));
                  int64_t generation = 0;
                  if (k.at_pointer("/metadata/generation").get(generation)) generation = 0;
                  auto verdict =
                      controllers::check_karta(kube::typed_item(k, r.api_version(), r.kind), name, generation, -1);
                  if (verdict.accepted) catalog.put(verdict.accepted);
                }});
  reader.run();
  for (const auto& dir : dirs) catalog.merge(catalog::Catalog::from_directory(dir, errors));
  for (const auto& e : errors) std::cerr << e.str() << "\n";
  if (!errors.empty()) return nullptr;
  return std::make_shared<const catalog::Catalog>(std::move(catalog));
}

// Every kind the catalog has a definition of, once per group/kind at the first version served; pods too.
void queue_workloads(ClusterReader& reader, const catalog::Catalog& catalog, live::Snapshot& snapshot) {
  std::map<std::string, const catalog::Definition*> kinds;
  for (const auto& d : catalog.definitions()) kinds.emplace(d->gvk.group + "/" + d->gvk.kind, d.get());
  for (const auto& [key, d] : kinds) {
    if (d->gvk.group.empty() && d->gvk.kind == "Pod") continue;  // read below, as pods
    std::vector<std::string> versions = d->versions;
    if (versions.empty()) versions.push_back(d->gvk.version);
    reader.queue({d->gvk.group, versions, d->gvk.kind, [&](const kube::Resource& r, simdjson::dom::element o) {
                    snapshot.objects.push_back({o, r.api_version(), r.kind});
                  }});
  }
  reader.queue(
      {"", {"v1"}, "Pod", [&](const kube::Resource&, simdjson::dom::element p) { snapshot.pods.push_back(p); }});
}

// The objects the profiles' schedulers record gangs on; a kind not served is remembered (describe says so).
void queue_gang_objects(ClusterReader& reader, const policy::Policy& policy, live::Snapshot& snapshot) {
  std::map<std::string, catalog::GroupVersionKind> kinds;
  for (const auto& name : policy.profile_names())
    if (const auto& g = policy.profile(name)->gang_status.object; !g.kind.empty())
      kinds.emplace(g.group + "/" + g.kind, g);
  for (const auto& [key, g] : kinds)
    reader.queue({g.group,
                  {g.version},
                  g.kind,
                  [&](const kube::Resource& r, simdjson::dom::element o) {
                    snapshot.gang_objects.push_back({o, r.api_version(), r.kind});
                  },
                  {},
                  [&snapshot, key = key] { snapshot.unserved_gang_kinds.insert(key); }});
}

// What the webhook's cluster side holds (referenced objects, DRA claims and classes, queues), held the same way.
void queue_references(ClusterReader& reader, const policy::AdmissionState& state, live::Snapshot& snapshot) {
  for (const auto& [key, gvk] : controllers::referenced_kinds(state)) {
    auto objects = std::make_shared<std::vector<std::string>>();
    reader.queue({gvk.group,
                  {gvk.version},
                  gvk.kind,
                  [objects](const kube::Resource& r, simdjson::dom::element o) {
                    objects->push_back(kube::typed_item(o, r.api_version(), r.kind));
                  },
                  [objects, &snapshot](const kube::Resource& r) {
                    snapshot.references->replace_kind(r.group, r.kind, std::move(*objects));
                  }});
  }
}

// The most GPUs one node has, and all nodes together.
void queue_nodes(ClusterReader& reader, live::Snapshot& snapshot) {
  reader.queue({"", {"v1"}, "Node", [&](const kube::Resource&, simdjson::dom::element node) {
                  snapshot.largest_node_gpus = snapshot.largest_node_gpus.value_or(0);
                  snapshot.cluster_gpus = snapshot.cluster_gpus.value_or(0);
                  simdjson::dom::object allocatable;
                  if (node.at_pointer("/status/allocatable").get_object().get(allocatable) != simdjson::SUCCESS) return;
                  view::ResourceList list;
                  for (auto field : allocatable)
                    if (auto q = view::quantity_of(field.value)) list.insert_or_assign(field.key, *q);
                  const long long gpus = view::gpu_count(list);
                  snapshot.largest_node_gpus = std::max(*snapshot.largest_node_gpus, gpus);
                  *snapshot.cluster_gpus += gpus;
                }});
}

// The policy of --policy, else the installed webhook's (its ConfigMap), else the built-in one (with a note).
std::optional<policy::Policy> cluster_policy(kube::Api& api, const ClusterOptions& o, live::Snapshot& snapshot) {
  if (!o.policy_file.empty()) return load_policy(o.policy_file);
  const std::string where = o.policy_namespace + "/" + std::string(kPolicyConfigMap);
  kube::Response r =
      api.request("GET", "/api/v1/namespaces/" + o.policy_namespace + "/configmaps/" + std::string(kPolicyConfigMap));
  simdjson::dom::parser parser;
  simdjson::dom::element configmap;
  std::string_view text;
  if (r.ok() && parser.parse(r.body).get(configmap) == simdjson::SUCCESS)
    text = json::string_at(configmap, "/data/policy.yaml");
  if (text.empty()) {
    snapshot.notes.push_back(
        "the built-in policy is used: no ConfigMap " + where + " with a policy.yaml could be read" +
        (r.ok() ? std::string() : " (" + r.describe() + ")") + "; --policy FILE names the webhook's");
    return policy::Policy::builtin();
  }
  yaml::Diagnostics problems;
  auto policy = policy::Policy::load(std::string(text), "configmap " + where, problems);
  for (const auto& p : problems) std::cerr << p.str() << "\n";
  return policy;
}

}  // namespace

void add_cluster_options(CLI::App& command, ClusterOptions& o) {
  CLI::Option* kubeconfig =
      command.add_option("--kubeconfig", o.kubeconfig,
                         "the kubeconfig whose current context to read (default $KUBECONFIG, ~/.kube/config)");
  CLI::Option* in_cluster =
      command.add_flag("--in-cluster", o.in_cluster, "read the cluster of the pod this runs in")->excludes(kubeconfig);
  command
      .add_option("-f,--filename", o.files,
                  "the offline view: read these files' objects (what `kubectl get -o yaml` saves: the workloads, their "
                  "pods, the gang objects, Events) instead of a cluster; every namespace unless -n")
      ->excludes(kubeconfig)
      ->excludes(in_cluster)
      ->check(CLI::ExistingFile);
  CLI::Option* all = command.add_flag("-A,--all-namespaces", o.all_namespaces, "every namespace");
  command.add_option("-n,--namespace", o.namespace_name, "the namespace (default: the context's, else default)")
      ->excludes(all);
  CLI::Option* file = command.add_option("--policy", o.policy_file,
                                         "the webhook's policy (default: the installed webhook's ConfigMap)");
  command
      .add_option("--policy-namespace", o.policy_namespace,
                  "where the installed webhook's ConfigMap workload-map-policy is (default workload-map; the "
                  "built-in policy when none can be read)")
      ->excludes(file);
  add_definitions_option(command, o.dirs);
}

std::optional<ClusterRead> read_cluster(const ClusterOptions& o, const ReadExtras& extras) {
  if (!o.files.empty()) {
    auto files = FileApi::read(o.files);
    if (!files) return std::nullopt;
    ClusterOptions offline = o;
    offline.all_namespaces = o.namespace_name.empty();
    return read_cluster(*files, offline, extras, "");
  }
  Result<kube::Config> config = cluster_config(o);
  if (!config) {
    std::cerr << "no cluster to read: " << config.error() << "\n";
    return std::nullopt;
  }
  auto client = kube::Client::make(*config);
  if (!client) {
    std::cerr << "cannot talk to " << config->server() << ": " << client.error() << "\n";
    return std::nullopt;
  }
  return read_cluster(**client, o, extras, config->namespace_name);
}

std::optional<ClusterRead> read_cluster(kube::Api& api, const ClusterOptions& o, const ReadExtras& extras,
                                        const std::string& context_namespace) {
  ClusterRead out;
  out.namespace_name = o.all_namespaces             ? ""
                       : !o.namespace_name.empty()  ? o.namespace_name
                       : !context_namespace.empty() ? context_namespace
                                                    : "default";
  ClusterReader reader(api, out.snapshot, out.namespace_name);
  // Discovery answers first: no answer at all is an error, not an empty cluster.
  if (Result<kube::Resource> pods = reader.discovery().find("", "v1", "Pod"); !pods) {
    std::cerr << "cannot read the cluster: " << pods.error() << "\n";
    return std::nullopt;
  }
  auto catalog = cluster_catalog(reader, o.dirs);
  auto policy = catalog ? cluster_policy(api, o, out.snapshot) : std::nullopt;
  if (!policy) return std::nullopt;
  out.state = {catalog, std::make_shared<const policy::Policy>(std::move(*policy)), out.snapshot.references};
  queue_workloads(reader, *catalog, out.snapshot);
  queue_gang_objects(reader, *out.state.policy, out.snapshot);
  queue_references(reader, out.state, out.snapshot);
  if (extras.nodes) queue_nodes(reader, out.snapshot);
  if (extras.events)
    reader.queue({"", {"v1"}, "Event", [&](const kube::Resource&, simdjson::dom::element e) {
                    out.snapshot.events.push_back(e);
                  }});
  reader.run();
  return out;
}

}  // namespace wm::cli
