// What users install, run as shipped: each rendering of manifests/ is applied to the real API server, and the
// binary starts with its Deployment's exact container args and env. Its volumes are the applied Secret and
// ConfigMap, read back from the API server into files, bound at the Deployment's mount paths in a private mount
// namespace; --in-cluster finds a token of the shipped ServiceAccount and KUBERNETES_SERVICE_* pointing at the
// test control plane. The shipped readiness probe must answer 200, the replica must lead, and /metrics must
// answer on the metrics port. Needs root (mount namespaces); the mount points are made, empty, on the machine.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "base/json/json_read.h"
#include "tests/cluster/cluster_support.h"
#include "tests/support/test_support.h"

using namespace wm::test;

extern char** environ;

namespace {

std::string str(simdjson::dom::element e, std::string_view pointer) {
  return std::string(wm::json::string_at(e, pointer));
}

struct Rendering {
  std::vector<ParsedObject> objects;
  const ParsedObject& deployment() const {
    for (const auto& o : objects)
      if (o.kind == "Deployment" && o.name == "workload-map") return o;
    FAIL("no Deployment workload-map");
    throw;
  }
};

// Renders manifests/<overlay> and applies every object the test API server serves (cert-manager's are not).
Rendering render_and_apply(const std::string& overlay) {
  CommandResult rendered =
      run_command({std::string(WM_CLUSTER_BIN) + "/kubectl", "kustomize", source_path("manifests/" + overlay)});
  INFO(rendered.err);
  REQUIRE(rendered.status == 0);
  Rendering r{parse_yaml(rendered.out, overlay)};
  std::string list = R"({"apiVersion":"v1","kind":"List","items":[)";
  bool first = true;
  for (const auto& o : r.objects) {
    if (o.api_version.rfind("cert-manager.io/", 0) == 0) continue;
    list += (first ? "" : ",") + o.source.json;
    first = false;
  }
  CommandResult applied =
      Cluster::get().kubectl({"apply", "--server-side", "--force-conflicts", "-f", "-"}, list + "]}");
  INFO("kubectl apply: " << applied.err);
  REQUIRE(applied.status == 0);
  return r;
}

// A volume's content as the kubelet would project it: each key of the Secret or ConfigMap, a file in `dir`.
void project_volume(simdjson::dom::element volume, const std::string& namespace_name, const std::string& dir) {
  const bool secret = !volume["secret"].error();
  const std::string name = secret ? str(volume, "/secret/secretName") : str(volume, "/configMap/name");
  REQUIRE(!name.empty());
  simdjson::dom::parser parser;
  auto object = Cluster::get().get_json(parser, {"get", secret ? "secret" : "configmap", name, "-n", namespace_name});
  simdjson::dom::object data;
  REQUIRE(object["data"].get_object().get(data) == simdjson::SUCCESS);
  std::filesystem::create_directories(dir);
  for (auto [key, value] : data) {
    std::string text(value.get_string().value());
    std::ofstream(dir + "/" + std::string(key), std::ios::binary) << (secret ? base64_decode(text) : text);
  }
}

// Where the container's files come from: the machine with the built binary, or an image's root filesystem
// (read-only, as readOnlyRootFilesystem makes it) with its entrypoint, run as the pod's user.
struct ContainerRoot {
  std::string rootfs;  // empty: the machine
  std::string entrypoint = WM_CLI;
  std::string user;  // "uid:gid", with a rootfs
};

// `path` inside `root`, with symlinks in the root resolved inside it (as runc resolves mount targets): an image's
// /var/run is a link to /run, which must not lead to the machine's /run.
std::string in_root(const std::string& root, const std::string& path) {
  if (root.empty()) return path;
  std::filesystem::path resolved = "/";
  for (const auto& part : std::filesystem::path(path).relative_path()) {
    std::filesystem::path next = resolved / part;
    if (std::filesystem::is_symlink(root + next.string())) {
      const std::filesystem::path target = std::filesystem::read_symlink(root + next.string());
      next = target.is_absolute() ? target : resolved / target;
    }
    resolved = next.lexically_normal();
  }
  return root + resolved.string();
}

// The Deployment's first container, started as the kubelet would start it, with mounts bound from `volumes`
// (mount path -> directory); stdout and stderr go to `log`.
class ShippedProcess {
 public:
  ShippedProcess(const std::vector<std::string>& args, const std::vector<std::string>& env,
                 const std::map<std::string, std::string>& mounts, const std::string& log,
                 const ContainerRoot& container = {})
      : log_(log) {
    const std::string& root = container.rootfs;
    std::string script = "set -e\n";
    for (const auto& [path, dir] : mounts)
      std::filesystem::create_directories(
          in_root(root, path));  // an empty mount point (on the machine without a rootfs)
    if (!root.empty())
      script += "mount --bind '" + root + "' '" + root + "'\nmount -o remount,bind,ro '" + root + "'\n";
    for (const auto& [path, dir] : mounts) script += "mount --bind '" + dir + "' '" + in_root(root, path) + "'\n";
    script += root.empty() ? "exec \"$@\"\n" : "exec chroot --userspec=" + container.user + " '" + root + "' \"$@\"\n";
    std::vector<std::string> argv = {"unshare", "--mount", "--propagation",     "private", "sh", "-c",
                                     script,    "sh",      container.entrypoint};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv, cenv;
    std::vector<std::string> argv_copy = argv, env_copy = env;
    for (auto& a : argv_copy) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env_copy) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    REQUIRE(posix_spawnp(&pid_, "unshare", &actions, nullptr, cargv.data(), cenv.data()) == 0);
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ShippedProcess() { stop(); }
  // SIGTERM, as the kubelet stops a pod; the exit status as a shell reports it (128 + the signal that ended it),
  // -1 if it had to be killed.
  int stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 3000 && waitpid(pid_, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      status = -1;
    }
    pid_ = -1;
    return status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  bool running() const {
    int status;
    return pid_ > 0 && waitpid(pid_, &status, WNOHANG) == 0;
  }
  std::string log() const { return read_file(log_); }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

// A container port by name or number.
int container_port(simdjson::dom::element container, simdjson::dom::element port) {
  int64_t number = 0;
  if (!port.get_int64().get(number)) return static_cast<int>(number);
  std::string_view name = port.get_string().value();
  simdjson::dom::array ports = container["ports"].get_array().value();  // named: a temporary's view would dangle
  for (auto p : ports)
    if (str(p, "/name") == name) return static_cast<int>(p["containerPort"].get_int64().value());
  FAIL("no container port " << name);
  return 0;
}

// How a test reaches the server over TLS: the CA that signed its certificate and a name the certificate holds.
struct TlsPeer {
  std::string ca, host;
};

// Runs the rendering's Deployment (already applied) as shipped and checks what the kubelet and Prometheus see;
// returns what its metrics port served.
std::string run_as_shipped(const Rendering& rendering, const std::string& label, const TlsPeer& peer,
                           ContainerRoot image = {}) {
  const ParsedObject& deployment = rendering.deployment();
  const std::string ns = str(deployment.root, "/metadata/namespace");
  simdjson::dom::element pod = deployment.root.at_pointer("/spec/template/spec").value();
  simdjson::dom::element container = pod.at_pointer("/containers/0").value();
  const Cluster& cluster = Cluster::get();
  std::string root = write_temp("install-" + std::to_string(getpid()) + "-" + label, "");
  std::filesystem::remove(root);
  std::filesystem::create_directories(root);

  std::map<std::string, std::string> mounts;
  std::map<std::string, simdjson::dom::element> volumes;
  simdjson::dom::array volume_list = pod["volumes"].get_array().value();
  simdjson::dom::array mount_list = container["volumeMounts"].get_array().value();
  for (auto v : volume_list) volumes[str(v, "/name")] = v;
  for (auto m : mount_list) {
    const std::string name = str(m, "/name");
    REQUIRE(volumes.count(name));
    project_volume(volumes[name], ns, root + "/volumes/" + name);
    mounts[str(m, "/mountPath")] = root + "/volumes/" + name;
  }
  // The projected service-account token of the shipped ServiceAccount, as automountServiceAccountToken gives it.
  const std::string account = str(pod, "/serviceAccountName");
  CommandResult token = cluster.kubectl({"create", "token", account, "-n", ns});
  INFO(token.err);
  REQUIRE(token.status == 0);
  const std::string sa = root + "/serviceaccount";
  std::filesystem::create_directories(sa);
  std::ofstream(sa + "/token") << token.out.substr(0, token.out.find_last_not_of('\n') + 1);
  std::filesystem::copy_file(cluster.dir() + "/pki/ca.crt", sa + "/ca.crt",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(sa + "/namespace") << ns;
  mounts["/var/run/secrets/kubernetes.io/serviceaccount"] = sa;

  // The API server as a pod sees it; the downward API's fields.
  simdjson::dom::parser parser;
  const std::string server =
      str(cluster.get_json(parser, {"config", "view", "--minify", "--raw"}), "/clusters/0/cluster/server");
  const auto host_port = server.substr(server.find("://") + 3);
  const std::string pod_name = "workload-map-" + label + "-0";
  std::vector<std::string> env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                                  "KUBERNETES_SERVICE_HOST=" + host_port.substr(0, host_port.rfind(':')),
                                  "KUBERNETES_SERVICE_PORT=" + host_port.substr(host_port.rfind(':') + 1)};
  simdjson::dom::array env_list;
  if (!container["env"].get_array().get(env_list))
    for (auto e : env_list) {
      const std::string field = str(e, "/valueFrom/fieldRef/fieldPath");
      const std::string value = field == "metadata.name"        ? pod_name
                                : field == "metadata.namespace" ? ns
                                                                : str(e, "/value");
      REQUIRE((field.empty() || field == "metadata.name" || field == "metadata.namespace"));
      env.push_back(str(e, "/name") + "=" + value);
    }
  std::vector<std::string> args;
  simdjson::dom::array arg_list = container["args"].get_array().value();
  for (auto a : arg_list) args.emplace_back(a.get_string().value());

  if (!image.rootfs.empty()) {
    int64_t uid = 0;
    REQUIRE(pod.at_pointer("/securityContext/runAsUser").get_int64().get(uid) == simdjson::SUCCESS);
    image.user = std::to_string(uid) + ":" + std::to_string(uid);
  }
  ShippedProcess process(args, env, mounts, root + "/server.log", image);
  // The shipped readiness probe, at its port and scheme.
  simdjson::dom::element probe = container.at_pointer("/readinessProbe/httpGet").value();
  const int port = container_port(container, probe["port"].value());
  const std::string url = (str(probe, "/scheme") == "HTTPS" ? "https://" : "http://") + peer.host + ":" +
                          std::to_string(port) + str(probe, "/path");
  const std::string curl = "curl -s -o /dev/null -w '%{http_code}' --cacert " + peer.ca + " --resolve " + peer.host +
                           ":" + std::to_string(port) + ":127.0.0.1 " + url;
  std::string code;
  const bool ready = eventually(
      [&] {
        run(curl, code);
        return code == "200" || !process.running();
      },
      std::chrono::seconds(60), std::chrono::milliseconds(250));
  INFO("args:" <<
       [&] {
         std::string all;
         for (const auto& a : args) all += " " + a;
         return all;
       }() << "\nserver log:\n"
               << process.log());
  REQUIRE(ready);
  REQUIRE(code == "200");

  // One replica leads: the shipped Role lets it take the Lease.
  CHECK(eventually(
      [&] {
        CommandResult lease =
            cluster.kubectl({"get", "lease", "workload-map", "-n", ns, "-o", "jsonpath={.spec.holderIdentity}"});
        return lease.out == pod_name;
      },
      std::chrono::seconds(30)));
  // Prometheus scrapes the metrics port in plain HTTP, found as the metrics Service names it.
  const ParsedObject* metrics_service = nullptr;
  for (const auto& o : rendering.objects)
    if (o.kind == "Service" && o.name == "workload-map-metrics") metrics_service = &o;
  REQUIRE(metrics_service);
  const int metrics_port =
      container_port(container, metrics_service->root.at_pointer("/spec/ports/0/targetPort").value());
  std::string metrics;
  run("curl -sf http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics", metrics);
  CHECK_THAT(metrics, Catch::Contains("workload_map_build_info{version=\""));
  CHECK_THAT(metrics, Catch::Contains("workload_map_definitions_loaded"));
  const int exit_status = process.stop();
  INFO("exit status " << exit_status << "; server log after SIGTERM:\n" << process.log());
  CHECK(exit_status == 0);
  return metrics;
}

bool can_mount() {
  if (geteuid() == 0 && have_command("unshare")) return true;
  WARN("needs root and unshare (mount namespaces): skipped");
  return false;
}

// What a rendering grants and routes, as comparable sets: the ClusterRole's (group, resource, verb) triples and the
// mutating webhook's (group, resource) pairs.
struct Grants {
  std::set<std::string> role, routes;
};
Grants grants_of(const std::vector<ParsedObject>& objects) {
  Grants g;
  auto strings = [](simdjson::dom::element e, const char* key) {
    std::vector<std::string> out;
    simdjson::dom::array a;
    if (!e[key].get_array().get(a))
      for (auto v : a) out.emplace_back(v.get_string().value());
    return out;
  };
  for (const auto& o : objects) {
    simdjson::dom::array items;
    if (o.kind == "ClusterRole" && !o.root["rules"].get_array().get(items))
      for (auto rule : items)
        for (const auto& group : strings(rule, "apiGroups"))
          for (const auto& resource : strings(rule, "resources"))
            for (const auto& verb : strings(rule, "verbs")) g.role.insert(group + "/" + resource + ":" + verb);
    if (o.kind == "MutatingWebhookConfiguration" && !o.root.at_pointer("/webhooks/0/rules").get_array().get(items))
      for (auto rule : items)
        for (const auto& group : strings(rule, "apiGroups"))
          for (const auto& resource : strings(rule, "resources")) g.routes.insert(group + "/" + resource);
  }
  return g;
}

// The cluster-scoped objects an install leaves, so that the next install (or test) starts clean.
void remove_cluster_scoped() {
  CommandResult r = Cluster::get().kubectl({"delete", "--ignore-not-found", "mutatingwebhookconfiguration/workload-map",
                                            "validatingwebhookconfiguration/workload-map", "clusterrole/workload-map",
                                            "clusterrolebinding/workload-map"});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

// The serving certificate a user makes (certs/make-certs.sh), as the Secret the kustomize Deployment mounts.
void create_tls_secret(const std::string& ns) {
  const auto& certs = test_certificates();
  const Cluster& cluster = Cluster::get();
  cluster.kubectl({"delete", "secret", "workload-map-tls", "-n", ns, "--ignore-not-found"});
  CommandResult secret = cluster.kubectl(
      {"create", "secret", "tls", "workload-map-tls", "-n", ns, "--cert", certs.certificate, "--key", certs.key});
  INFO(secret.err);
  REQUIRE(secret.status == 0);
}

CommandResult helm(std::vector<std::string> args) {
  args.insert(args.begin(), {std::string(WM_CLUSTER_BIN) + "/helm", "--kubeconfig", Cluster::get().kubeconfig()});
  return run_command(args);
}

const std::string& chart() {
  static const std::string path = source_path("charts/workload-map");
  return path;
}

// The objects of a release as the API server has them.
Rendering release_manifest(const std::string& release, const std::string& ns) {
  CommandResult manifest = helm({"get", "manifest", release, "-n", ns});
  INFO(manifest.err);
  REQUIRE(manifest.status == 0);
  return {parse_yaml(manifest.out, "release " + release)};
}

}  // namespace

TEST_CASE("the shipped Deployment starts as shipped: base and every overlay") {
  if (!can_mount()) return;
  for (const std::string overlay : {"base", "overlays/fail-closed", "overlays/cert-manager", "overlays/namespace"}) {
    INFO("manifests/" << overlay);
    const Rendering rendering = render_and_apply(overlay);
    const std::string ns = str(rendering.deployment().root, "/metadata/namespace");
    create_tls_secret(ns);
    run_as_shipped(rendering, overlay.substr(overlay.rfind('/') + 1), {test_certificates().ca, "127.0.0.1"});
  }
  remove_cluster_scoped();  // the next test registers the webhooks its own way
}

TEST_CASE("the image scripts/image.sh builds runs the shipped Deployment from its own root filesystem") {
  if (!can_mount() || !have_command("mmdebstrap") || !have_command("umoci")) {
    WARN("needs mmdebstrap and umoci (scripts/setup.sh installs them): skipped");
    return;
  }
  std::string dir = write_temp("image-" + std::to_string(getpid()), "");
  std::filesystem::remove(dir);
  std::filesystem::create_directories(dir);
  CommandResult built = run_command({source_path("scripts/image.sh"), dir + "/oci", "test"});
  INFO(built.err);
  REQUIRE(built.status == 0);
  CommandResult unpacked = run_command({"umoci", "unpack", "--image", dir + "/oci:test", dir + "/bundle"});
  INFO(unpacked.err);
  REQUIRE(unpacked.status == 0);
  // The runtime config umoci derives from the image: its entrypoint, its user, its labels.
  const std::string config_text = read_file(dir + "/bundle/config.json");
  simdjson::dom::parser parser;
  simdjson::dom::element config = parser.parse(config_text).value();
  CHECK(config.at_pointer("/process/user/uid").get_int64().value() == 65532);
  CHECK(str(config, "/annotations/org.opencontainers.image.title") == "workload-map");
  CHECK(!str(config, "/annotations/org.opencontainers.image.revision").empty());
  // Scanners read the package database.
  CHECK_THAT(read_file(dir + "/bundle/rootfs/var/lib/dpkg/status"), Catch::Contains("Package: libyaml-cpp0.7"));

  const Rendering rendering = render_and_apply("base");
  create_tls_secret("workload-map");
  run_as_shipped(rendering, "image", {test_certificates().ca, "127.0.0.1"},
                 {dir + "/bundle/rootfs", str(config, "/process/args/0"), ""});
  remove_cluster_scoped();
  std::filesystem::remove_all(dir);
}

TEST_CASE("the chart lints and renders over a values matrix") {
  const std::vector<std::vector<std::string>> matrix = {
      {},
      {"--set", "certificates.source=cert-manager", "--set", "metrics.serviceMonitor.enabled=true", "--set",
       "metrics.prometheusRule.enabled=true", "--set", "metrics.grafanaDashboard.enabled=true", "--set",
       "metrics.workloads.enabled=true"},
      {"--set", "certificates.source=provided", "--set", "certificates.caBundle=Y2E=", "--set",
       "certificates.secretName=mine", "--set", "webhook.failurePolicy=Fail", "--set", "webhook.timeoutSeconds=10"},
      {"--set", "replicaCount=3", "--set", "podDisruptionBudget.enabled=false", "--set", "priorityClassName=", "--set",
       "image.repository=registry.example/workload-map", "--set", "image.tag=9.9.9", "--set",
       "imagePullSecrets[0].name=pull", "--set", "kartas=false", "--set", "podGroups=false"},
      {"--set-file", "policy=" + source_path("manifests/base/policy.yaml")},
  };
  for (const auto& values : matrix) {
    std::vector<std::string> lint = {"lint", chart()}, render = {"template", "wm", chart(), "-n", "gpu-admission"};
    lint.insert(lint.end(), values.begin(), values.end());
    render.insert(render.end(), values.begin(), values.end());
    std::string shown;
    for (const auto& v : values) shown += " " + v;
    INFO("values:" << shown);
    CommandResult linted = helm(lint);
    INFO(linted.out << linted.err);
    CHECK(linted.status == 0);
    CommandResult rendered = helm(render);
    INFO(rendered.err);
    REQUIRE(rendered.status == 0);
    // The release namespace is the only namespace named anywhere.
    const std::string expected = R"("namespace":"gpu-admission")";
    for (const auto& o : parse_yaml(rendered.out, "helm template")) {
      std::string text = o.source.json;
      for (size_t at = text.find("\"namespace\":\""); at != std::string::npos;
           at = text.find("\"namespace\":\"", at + 1))
        CHECK(text.substr(at, expected.size()) == expected);
      CHECK(text.find("\"workload-map.workload-map.svc") == std::string::npos);
    }
  }
  // The chart grants and routes what the kustomize base does: one list is not left behind by the other.
  CommandResult base = run_command({std::string(WM_CLUSTER_BIN) + "/kubectl", "kustomize", source_path("manifests")});
  CommandResult chart_default = helm({"template", "wm", chart(), "-n", "gpu-admission"});
  REQUIRE(base.status == 0);
  REQUIRE(chart_default.status == 0);
  const Grants from_base = grants_of(parse_yaml(base.out, "manifests")),
               from_chart = grants_of(parse_yaml(chart_default.out, "chart"));
  CHECK(from_base.role.size() > 40);
  CHECK(from_chart.role == from_base.role);
  CHECK(from_base.routes.size() > 20);
  CHECK(from_chart.routes == from_base.routes);
  // A wrong certificate source is named.
  CommandResult wrong = helm({"template", "wm", chart(), "--set", "certificates.source=vault"});
  CHECK(wrong.status != 0);
  CHECK_THAT(wrong.err, Catch::Contains("certificates.source is \"vault\""));
}

TEST_CASE("the chart installs upgrades and uninstalls and its Deployment starts as shipped") {
  if (!can_mount()) return;
  remove_cluster_scoped();
  const std::string ns = "wm-chart";
  const Cluster& cluster = Cluster::get();
  CommandResult installed = helm({"install", "wm", chart(), "-n", ns, "--create-namespace", "--set-file",
                                  "policy=" + source_path("manifests/base/policy.yaml"), "--set", "catalogKartas=true",
                                  "--set", "metrics.workloads.enabled=true"});
  INFO(installed.out << installed.err);
  REQUIRE(installed.status == 0);
  {
    // The chart's own certificate: its CA, and the service name it holds.
    simdjson::dom::parser parser;
    auto secret = cluster.get_json(parser, {"get", "secret", "workload-map-tls", "-n", ns});
    const std::string ca = write_temp("chart-ca.crt", base64_decode(str(secret, "/data/ca.crt")));
    const std::string metrics =
        run_as_shipped(release_manifest("wm", ns), "chart", {ca, "workload-map." + ns + ".svc"});
    // Every metric the chart's alerts and dashboard query is one the binary serves.
    std::set<std::string> queried;
    const std::regex metric_name(R"(workload_map_[a-z_]+)");
    for (const char* file : {"charts/workload-map/files/alerts.yaml", "charts/workload-map/files/dashboard.json"}) {
      const std::string text = read_file(source_path(file));
      for (std::sregex_iterator it(text.begin(), text.end(), metric_name), end; it != end; ++it)
        queried.insert(std::regex_replace(it->str(), std::regex("_(bucket|sum|count)$"), ""));
    }
    CHECK(queried.size() >= 15);
    // It read the catalog's Kartas the chart installed, and refused none.
    CHECK_THAT(metrics, Catch::Contains("workload_map_kartas{state=\"refused\"} 0\n"));
    CHECK_THAT(metrics, Catch::Contains("workload_map_kartas{state=\"accepted\"} " +
                                        std::to_string(builtin_catalog().size()) + "\n"));
    for (const auto& name : queried) {
      INFO(name);
      CHECK(metrics.find("# TYPE " + name + " ") != std::string::npos);
    }
  }
  // An upgrade that changes something else keeps the policy and the certificate.
  simdjson::dom::parser before_parser;
  const std::string ca_before =
      str(cluster.get_json(before_parser, {"get", "secret", "workload-map-tls", "-n", ns}), "/data/ca.crt");
  CommandResult upgraded = helm({"upgrade", "wm", chart(), "-n", ns, "--reuse-values", "--set", "replicaCount=3"});
  INFO(upgraded.out << upgraded.err);
  REQUIRE(upgraded.status == 0);
  simdjson::dom::parser parser;
  CHECK(str(cluster.get_json(parser, {"get", "configmap", "workload-map-policy", "-n", ns}), "/data/policy.yaml")
            .find("schedulerProfiles:") != std::string::npos);
  CHECK(str(cluster.get_json(parser, {"get", "secret", "workload-map-tls", "-n", ns}), "/data/ca.crt") == ca_before);
  CHECK(cluster.get_json(parser, {"get", "deployment", "workload-map", "-n", ns})
            .at_pointer("/spec/replicas")
            .get_int64()
            .value() == 3);
  CHECK(cluster.kubectl({"get", "karta", "jobset-x-k8s-io-v1alpha2-jobset"}).status == 0);  // the catalog, as Kartas
  // With the chart's default values (the built-in policy: no ConfigMap, no --policy), it starts as shipped too.
  CommandResult defaults = helm({"upgrade", "wm", chart(), "-n", ns, "--reset-values"});
  INFO(defaults.out << defaults.err);
  REQUIRE(defaults.status == 0);
  {
    const std::string ca = write_temp("chart-ca.crt", base64_decode(ca_before));
    run_as_shipped(release_manifest("wm", ns), "chart-defaults", {ca, "workload-map." + ns + ".svc"});
  }
  // Uninstalled, nothing of it is left (but the CRD, which Helm never deletes, and the Lease the server made).
  CommandResult uninstalled = helm({"uninstall", "wm", "-n", ns, "--wait"});
  INFO(uninstalled.out << uninstalled.err);
  REQUIRE(uninstalled.status == 0);
  CommandResult left =
      cluster.kubectl({"get",
                       "all,configmap,secret,serviceaccount,role,rolebinding,poddisruptionbudget,resourcequota,"
                       "clusterrole,clusterrolebinding,mutatingwebhookconfiguration,validatingwebhookconfiguration",
                       "-A", "-l", "app.kubernetes.io/instance=wm", "-o", "name"});
  INFO(left.err);
  CHECK(left.status == 0);
  CHECK(left.out == "");
}
