#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/catalog_options.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "controllers/cluster_side.h"
#include "kube/config.h"
#include "mapper/expr/jq_sandbox.h"
#include "webhook/server.h"

namespace wm::cli {

namespace {

struct ServeOptions {
  webhook::ServerOptions server;
  policy::StateSources sources;
  webhook::TlsFiles tls_files;
  std::string log_level = "info", kubeconfig;
  bool in_cluster = false;
  controllers::ClusterOptions cluster;
  long long read_timeout_ms = 10'000, idle_timeout_ms = 60'000, drain_timeout_ms = 20'000, shutdown_delay_ms = 0;
  long long review_deadline_ms = 250;
};

// "ADDRESS:PORT" or "[IPv6]:PORT" into `address` and `port`; a message when it is neither.
std::string split_listen(const std::string& text, std::string& address, uint16_t& port) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) return "takes ADDRESS:PORT, not " + text;
  char* end = nullptr;
  const std::string digits = text.substr(colon + 1);
  const long n = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || n < 0 || n > 65535) return "takes ADDRESS:PORT, not " + text;
  address = text.substr(0, colon);
  if (address.size() > 2 && address.front() == '[') address = address.substr(1, address.size() - 2);
  port = static_cast<uint16_t>(n);
  return "";
}

CLI::Validator listen_address() {
  return CLI::Validator(
      [](std::string& text) {
        std::string address;
        uint16_t port = 0;
        return split_listen(text, address, port);
      },
      "ADDRESS:PORT");
}

LogLevel log_level(const std::string& name) {
  return name == "debug"   ? LogLevel::Debug
         : name == "warn"  ? LogLevel::Warn
         : name == "error" ? LogLevel::Error
                           : LogLevel::Info;
}

// Each connection is a file descriptor: take what the hard limit allows (1024 is common).
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB), after which blocks that
// size come from the heap and stay there: one large request would keep the process that much bigger for good.
// A fixed threshold (setting it turns the adjustment off) sends every block of 128 KiB or more to mmap, which
// gives it back when freed. Requests that large are rare, so their mmap calls cost nothing that matters.
void return_large_blocks_to_the_system() { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

// Without --cert, a self-signed certificate for localhost in a new temporary directory.
Result<void> make_certificate_if_none(webhook::TlsFiles& files, bool& self_signed) {
  self_signed = files.certificate.empty();
  if (!self_signed) return {};
  std::string dir = (std::filesystem::temp_directory_path() / "workload-map-XXXXXX").string();
  if (!mkdtemp(dir.data())) return Error{"cannot make a temporary directory"};
  if (auto made = webhook::make_self_signed(dir); !made) return made;
  files.certificate = dir + "/tls.crt";
  files.key = dir + "/tls.key";
  return {};
}

// The cluster side, started, when --kubeconfig or --in-cluster says where the API server is; nullptr without one, or
// an error when it cannot start. Its Lease's namespace and this replica's identity default from the pod.
Result<std::unique_ptr<controllers::ClusterSide>> start_cluster_side(const ServeOptions& o, policy::StateStore& state,
                                                                     Metrics& metrics, const Logger& log) {
  if (o.kubeconfig.empty() && !o.in_cluster) return nullptr;
  controllers::ClusterOptions cluster = o.cluster;
  auto config = o.in_cluster ? kube::config_in_cluster() : kube::config_from_kubeconfig(o.kubeconfig);
  if (!config) return Error{config.error()};
  cluster.config = std::move(*config);
  if (cluster.lease_namespace.empty()) {
    const char* pod_namespace = std::getenv("POD_NAMESPACE");
    cluster.lease_namespace = pod_namespace && *pod_namespace          ? pod_namespace
                              : !cluster.config.namespace_name.empty() ? cluster.config.namespace_name
                                                                       : "default";
  }
  if (cluster.identity.empty()) {
    const char* pod_name = std::getenv("POD_NAME");
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    cluster.identity = pod_name && *pod_name ? pod_name : std::string(host) + "_" + std::to_string(getpid());
  }
  auto side = std::make_unique<controllers::ClusterSide>(std::move(cluster), state, metrics, log);
  if (auto started = side->start(); !started) return Error{started.error()};
  return side;
}

// "[ADDRESS]" for an IPv6 address in a URL, the address itself otherwise.
std::string url_host(const std::string& address) {
  return address.find(':') != std::string::npos ? "[" + address + "]" : address;
}

// Where it listens, in the log and, for a person at a terminal, with the commands to try it.
void announce(const ServeOptions& o, const policy::StateStore& state, const Logger& log, bool self_signed,
              uint16_t port, uint16_t metrics_port) {
  const std::string url = "https://" + url_host(o.server.address) + ":" + std::to_string(port);
  const size_t definitions = state.current().catalog->size();
  const std::string policy = o.sources.policy_file.empty() ? "built-in" : o.sources.policy_file;
  log.log(LogLevel::Info, "listening",
          {{"url", url},
           {"certificate", o.tls_files.certificate},
           {"definitions", std::to_string(definitions)},
           {"policy", policy}});
  const std::string metrics_url =
      metrics_port ? "http://" + url_host(o.server.metrics_address) + ":" + std::to_string(metrics_port) + "/metrics"
                   : "";
  if (metrics_port) log.log(LogLevel::Info, "metrics listening", {{"url", metrics_url}});
  std::cout << "workload-map is serving on " << url << " (" << definitions << " workload definitions, " << policy
            << " policy)" << (metrics_port ? ", metrics on " + metrics_url : "") << "\n"
            << "  certificate: " << o.tls_files.certificate << (self_signed ? " (self-signed, localhost)" : "") << "\n"
            << "  try:  curl --cacert " << o.tls_files.certificate << " " << url << "/healthz\n"
            << "        workload-map review-request examples/jobset-12-gpus.yaml > review.json\n"
            << "        curl --cacert " << o.tls_files.certificate
            << " -H 'Content-Type: application/json' --data @review.json " << url << "/mutate\n"
            << "  stop: Ctrl-C (drains requests in flight)\n"
            << std::flush;
}

int serve(ServeOptions& o) {
  o.server.read_timeout = std::chrono::milliseconds(o.read_timeout_ms);
  o.server.review_deadline = std::chrono::milliseconds(o.review_deadline_ms);
  o.server.idle_timeout = std::chrono::milliseconds(o.idle_timeout_ms);
  o.server.drain_timeout = std::chrono::milliseconds(o.drain_timeout_ms);
  o.server.shutdown_delay = std::chrono::milliseconds(o.shutdown_delay_ms);
  // A server's jq runs forked, under limits (mapper/expr/jq_sandbox.h): admission's and the cluster side's alike.
  expr::set_jq_sandboxed(true);
  raise_open_file_limit();
  return_large_blocks_to_the_system();
  Logger log(log_level(o.log_level));
  bool self_signed = false;
  auto certificate = make_certificate_if_none(o.tls_files, self_signed);
  webhook::TlsContexts tls(o.tls_files);
  if (auto loaded = certificate ? tls.load() : certificate; !loaded) {
    std::cerr << "serve: " << loaded.error() << "\n";
    return kInvalid;
  }
  policy::StateStore state(o.sources);
  if (const yaml::Diagnostics problems = state.load(); !problems.empty()) {
    for (const auto& p : problems) std::cerr << p.str() << "\n";
    return kInvalid;
  }
  Metrics metrics;
  metrics.set_build_info(version(), revision());
  auto started = start_cluster_side(o, state, metrics, log);
  if (!started) {
    std::cerr << "serve: " << started.error() << "\n";
    return kInvalid;
  }
  std::unique_ptr<controllers::ClusterSide> cluster_side = std::move(*started);
  webhook::Server server(o.server, state, tls, metrics, log);
  const int status = server.run(
      [&](uint16_t port, uint16_t metrics_port) { announce(o, state, log, self_signed, port, metrics_port); });
  if (cluster_side) cluster_side->stop();  // after the drain: a leader gives its Lease up
  return status;
}

// Where to listen, the certificates, and where the catalog and the policy come from.
void add_serving_options(CLI::App* command, ServeOptions* o) {
  command
      ->add_option_function<std::string>(
          "--listen", [o](const std::string& text) { split_listen(text, o->server.address, o->server.port); },
          "where to listen (default 127.0.0.1:8443; port 0 picks a free one)")
      ->type_name("ADDRESS:PORT")
      ->check(listen_address());
  command
      ->add_option_function<std::string>(
          "--metrics-listen",
          [o](const std::string& text) { split_listen(text, o->server.metrics_address, o->server.metrics_port); },
          "also serve /metrics, /healthz and /readyz in plain HTTP here (default: none)")
      ->type_name("ADDRESS:PORT")
      ->check(listen_address());
  CLI::Option* cert =
      command->add_option("--cert", o->tls_files.certificate, "serving certificate (PEM); reloaded when it changes");
  CLI::Option* key = command->add_option("--key", o->tls_files.key, "its key (PEM)");
  cert->needs(key);
  key->needs(cert);
  command->add_option("--client-ca", o->tls_files.client_ca, "require client certificates signed by this CA (mTLS)");
  command->add_option("--policy", o->sources.policy_file, "policy (YAML); reloaded when it changes; default: built-in");
  add_definitions_option(*command, o->sources.definition_dirs);
}

// The server's threads, sizes and timeouts.
void add_limit_options(CLI::App* command, ServeOptions* o) {
  command->add_option("--threads", o->server.threads, "io threads (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--max-body", o->server.max_body_bytes, "request body cap in bytes (default 3145728)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--read-timeout-ms", o->read_timeout_ms, "TLS handshake and first request (default 10000)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--review-deadline-ms", o->review_deadline_ms,
                   "how long one review's expressions may take in all; past it, the failure policy (default 250)")
      ->check(CLI::PositiveNumber);
  command->add_option("--idle-timeout-ms", o->idle_timeout_ms, "keep-alive wait for the next request (default 60000)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--max-connections", o->server.max_connections, "beyond this, closed at once (default 4096)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--drain-timeout-ms", o->drain_timeout_ms, "on SIGTERM, how long requests in flight may take")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--shutdown-delay-ms", o->shutdown_delay_ms,
                   "on SIGTERM, how long to go on serving, not ready, before draining: the time the endpoints take "
                   "to drop this replica (default 0; the manifests set 5000)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--log-level", o->log_level, "debug, info (default), warn or error")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
}

// The API server, and what the cluster side does there.
void add_cluster_options(CLI::App* command, ServeOptions* o) {
  CLI::Option* kubeconfig =
      command->add_option("--kubeconfig", o->kubeconfig, "talk to the API server of this kubeconfig's current context");
  command->add_flag("--in-cluster", o->in_cluster, "talk to the API server of the pod this runs in")
      ->excludes(kubeconfig);
  auto on_off = [](bool& into) { return [&into](const std::string& v) { into = v == "on"; }; };
  command
      ->add_option_function<std::string>("--kartas", on_off(o->cluster.kartas),
                                         "definitions from the cluster's Karta objects (default on)")
      ->check(CLI::IsMember({"on", "off"}));
  command
      ->add_option_function<std::string>("--pod-groups", on_off(o->cluster.pod_groups),
                                         "make the PodGroups of profiles with a podGroup template (default on)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_flag("--workload-metrics", o->cluster.workload_metrics,
                    "every workload's pods, requests and waiting gangs as gauges on /metrics, per namespace, kind and "
                    "phase (watches every kind the catalog knows, and the pods; docs/cluster.md)");
  command->add_option("--webhook-configuration", o->cluster.webhook_configuration,
                      "the webhook configurations whose rules gain every kind the catalog knows (default workload-map; "
                      "\"\" for none)");
  command->add_option("--lease-namespace", o->cluster.lease_namespace,
                      "the leader-election Lease's namespace (default $POD_NAMESPACE, else the kubeconfig's, else "
                      "default)");
  command->add_option("--lease-name", o->cluster.lease_name, "(default workload-map)");
  command->add_option("--identity", o->cluster.identity,
                      "this replica in the Lease (default $POD_NAME, else host_pid)");
}

}  // namespace

void add_serve(CLI::App& app, int& status) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand("serve", "run the admission webhook");
  command->footer(
      "With no options: the built-in catalog and policy, a self-signed certificate made in a temporary\n"
      "directory, on https://127.0.0.1:8443. The cluster side (Karta objects, PodGroups, webhook rules) is off\n"
      "unless --kubeconfig or --in-cluster says where the API server is; it is never on the admission path.");
  add_serving_options(command, o.get());
  add_limit_options(command, o.get());
  add_cluster_options(command, o.get());
  command->callback([o, &status] { status = serve(*o); });
}

}  // namespace wm::cli
