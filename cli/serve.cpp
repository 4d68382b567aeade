#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "controllers/cluster_side.h"
#include "kube/config.h"
#include "webhook/server.h"

namespace wm::cli {

namespace {

const char* const kServeUsage = R"(usage: workload-map serve [options]

With no options: the built-in catalog and policy, a self-signed certificate made in a temporary
directory, on https://127.0.0.1:8443.

  --listen ADDRESS:PORT     where to listen (default 127.0.0.1:8443; port 0 picks a free one)
  --cert FILE --key FILE    serving certificate and key (PEM); reloaded when the files change
  --client-ca FILE          require client certificates signed by this CA (mTLS)
  --policy FILE             policy (YAML); reloaded when it changes; default: the built-in one
  --definitions DIR         extra or overriding definitions (repeatable); reloaded when they change
  --threads N               io threads (default: one per core)
  --max-body BYTES          request body cap (default 3145728)
  --read-timeout-ms MS      TLS handshake and first request (default 10000)
  --idle-timeout-ms MS      keep-alive wait for the next request (default 60000)
  --max-connections N       connections beyond this are closed at once (default 4096)
  --drain-timeout-ms MS     on SIGTERM, how long requests in flight may take (default 20000)
  --log-level LEVEL         debug, info, warn or error (default info)

The cluster (off unless one of the first two is given; never on the admission path):
  --kubeconfig FILE         talk to the API server of this kubeconfig's current context
  --in-cluster              talk to the API server of the pod this runs in (its service account)
  --kartas on|off           definitions from the cluster's Karta objects, over the built-in catalog and
                            under --definitions (default on); not ready until they are listed
  --pod-groups on|off       make the PodGroups of profiles with a podGroup template (default on)
  --webhook-configuration NAME
                            the webhook configurations whose rules gain every kind the catalog
                            knows, a Karta's too (default workload-map; "" for none)
  --lease-namespace NS      the leader-election Lease's namespace (default $POD_NAMESPACE, else the
                            configuration's namespace, else default)
  --lease-name NAME         (default workload-map)
  --identity ID             this replica in the Lease (default $POD_NAME, else hostname_pid)
)";

bool number(const std::string& text, long long& out) {
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && out >= 0;
}

}  // namespace

int serve(const Args& args) {
  webhook::ServerOptions options;
  webhook::StateSources sources;
  webhook::TlsFiles tls_files;
  webhook::LogLevel level = webhook::LogLevel::Info;
  std::string kubeconfig;
  bool in_cluster = false;
  controllers::ClusterOptions cluster;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kServeUsage;
      return kOk;
    }
    if (a == "--in-cluster") {
      in_cluster = true;
      continue;
    }
    if (i + 1 >= args.size()) {
      std::cerr << "serve: " << a << " needs a value\n" << kServeUsage;
      return kUsage;
    }
    const std::string& v = args[++i];
    long long n = 0;
    auto need_number = [&](auto& into) {
      if (!number(v, n)) return false;
      into = static_cast<std::remove_reference_t<decltype(into)>>(n);
      return true;
    };
    bool ok = true;
    if (a == "--listen") {
      auto colon = v.rfind(':');
      ok = colon != std::string::npos && number(v.substr(colon + 1), n) && n < 65536;
      if (ok) {
        options.address = v.substr(0, colon);
        if (options.address.size() > 2 && options.address.front() == '[')
          options.address = options.address.substr(1, options.address.size() - 2);
        options.port = static_cast<uint16_t>(n);
      }
    } else if (a == "--cert") {
      tls_files.certificate = v;
    } else if (a == "--key") {
      tls_files.key = v;
    } else if (a == "--client-ca") {
      tls_files.client_ca = v;
    } else if (a == "--policy") {
      sources.policy_file = v;
    } else if (a == "--definitions") {
      sources.definition_dirs.push_back(v);
    } else if (a == "--threads") {
      ok = need_number(options.threads);
    } else if (a == "--max-body") {
      ok = need_number(options.max_body_bytes);
    } else if (a == "--max-connections") {
      ok = need_number(options.max_connections);
    } else if (a == "--read-timeout-ms" || a == "--idle-timeout-ms" || a == "--drain-timeout-ms") {
      ok = number(v, n);
      auto ms = std::chrono::milliseconds(n);
      (a == "--read-timeout-ms"   ? options.read_timeout
       : a == "--idle-timeout-ms" ? options.idle_timeout
                                  : options.drain_timeout) = ms;
    } else if (a == "--kubeconfig") {
      kubeconfig = v;
    } else if (a == "--kartas" || a == "--pod-groups") {
      ok = v == "on" || v == "off";
      (a == "--kartas" ? cluster.kartas : cluster.pod_groups) = v == "on";
    } else if (a == "--webhook-configuration") {
      cluster.webhook_configuration = v;
    } else if (a == "--lease-namespace") {
      cluster.lease_namespace = v;
    } else if (a == "--lease-name") {
      cluster.lease_name = v;
    } else if (a == "--identity") {
      cluster.identity = v;
    } else if (a == "--log-level") {
      ok = v == "debug" || v == "info" || v == "warn" || v == "error";
      level = v == "debug"   ? webhook::LogLevel::Debug
              : v == "warn"  ? webhook::LogLevel::Warn
              : v == "error" ? webhook::LogLevel::Error
                             : webhook::LogLevel::Info;
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "serve: bad option " << a << " " << v << "\n" << kServeUsage;
      return kUsage;
    }
  }
  if (tls_files.certificate.empty() != tls_files.key.empty()) {
    std::cerr << "serve: --cert and --key go together\n";
    return kUsage;
  }

  // Each connection is a file descriptor: take what the hard limit allows (1024 is common).
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  webhook::Logger log(level);
  bool self_signed = tls_files.certificate.empty();
  if (self_signed) {
    std::string dir = (std::filesystem::temp_directory_path() / "workload-map-XXXXXX").string();
    if (!mkdtemp(dir.data())) {
      std::cerr << "serve: cannot make a temporary directory\n";
      return kInvalid;
    }
    std::string error;
    if (!webhook::make_self_signed(dir, error)) {
      std::cerr << "serve: " << error << "\n";
      return kInvalid;
    }
    tls_files.certificate = dir + "/tls.crt";
    tls_files.key = dir + "/tls.key";
  }
  webhook::TlsContexts tls(tls_files);
  std::string error;
  if (!tls.load(error)) {
    std::cerr << "serve: " << error << "\n";
    return kInvalid;
  }
  webhook::StateStore state(sources);
  std::vector<std::string> problems;
  if (!state.load(problems)) {
    for (const auto& p : problems) std::cerr << p << "\n";
    return kInvalid;
  }
  webhook::Metrics metrics;
  std::optional<controllers::ClusterSide> cluster_side;
  if (!kubeconfig.empty() || in_cluster) {
    if (!kubeconfig.empty() && in_cluster) {
      std::cerr << "serve: --kubeconfig and --in-cluster are two ways to say where the cluster is; give one\n";
      return kUsage;
    }
    std::string why;
    auto config = in_cluster ? kube::config_in_cluster(why) : kube::config_from_kubeconfig(kubeconfig, why);
    if (!config) {
      std::cerr << "serve: " << why << "\n";
      return kInvalid;
    }
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
    cluster_side.emplace(cluster, state, metrics, log);
    if (!cluster_side->start(why)) {
      std::cerr << "serve: " << why << "\n";
      return kInvalid;
    }
  }
  webhook::Server server(options, state, tls, metrics, log);
  const int status = server.run([&](uint16_t port) {
    std::string url = "https://" +
                      (options.address.find(':') != std::string::npos ? "[" + options.address + "]" : options.address) +
                      ":" + std::to_string(port);
    log.log(webhook::LogLevel::Info, "listening",
            {{"url", url},
             {"certificate", tls_files.certificate},
             {"definitions", std::to_string(state.current().catalog->size())},
             {"policy", sources.policy_file.empty() ? "built-in" : sources.policy_file}});
    std::cout << "workload-map is serving on " << url << " (" << state.current().catalog->size()
              << " workload definitions, " << (sources.policy_file.empty() ? "built-in" : sources.policy_file)
              << " policy)\n"
              << "  certificate: " << tls_files.certificate << (self_signed ? " (self-signed, localhost)" : "") << "\n"
              << "  try:  curl --cacert " << tls_files.certificate << " " << url << "/healthz\n"
              << "        workload-map review-request examples/jobset-12-gpus.yaml > review.json\n"
              << "        curl --cacert " << tls_files.certificate
              << " -H 'Content-Type: application/json' --data @review.json " << url << "/mutate\n"
              << "  stop: Ctrl-C (drains requests in flight)\n"
              << std::flush;
  });
  if (cluster_side) cluster_side->stop();  // after the drain: a leader gives its Lease up
  return status;
}

}  // namespace wm::cli
