#include "tests/cluster/cluster_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/beast/core/detail/base64.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "kube/config.h"
#include "tests/support/test_support.h"

extern char** environ;

namespace wm::test {

namespace {

// Standard input, output and error go through files, so neither side can block the other on a full pipe.
struct SpawnFiles {
  std::string in, out, err;
  SpawnFiles() {
    static int counter = 0;
    const std::string base = "cmd-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    in = write_temp(base + ".in", "");
    out = in.substr(0, in.size() - 3) + ".out";
    err = in.substr(0, in.size() - 3) + ".err";
  }
  ~SpawnFiles() {
    for (const auto* f : {&in, &out, &err}) unlink(f->c_str());
  }
};

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::string& input) {
  SpawnFiles files;
  std::ofstream(files.in, std::ios::binary) << input;
  std::vector<char*> cargv;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, files.in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, files.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, files.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  CommandResult result;
  int spawned = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    result.err = "cannot start " + argv[0];
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(files.out);
  result.err = read_file(files.err);
  return result;
}

std::unique_ptr<kube::Client> Cluster::client() const {
  auto config = kube::config_from_kubeconfig(kubeconfig_);
  REQUIRE(config);
  auto made = kube::Client::make(*config);
  REQUIRE(made);
  return std::move(*made);
}

const Cluster& Cluster::get() {
  static const Cluster cluster = [] {
    // Where CMake's fixture starts it; the environment can point elsewhere (a cluster started by hand).
    const char* dir = std::getenv("WM_CLUSTER_DIR");
    const char* bin = std::getenv("WM_CLUSTER_BIN");
    if (!dir) dir = WM_CLUSTER_DIR;
    if (!bin) bin = WM_CLUSTER_BIN;
    Cluster c;
    c.dir_ = dir;
    c.kubeconfig_ = c.dir_ + "/kubeconfig";
    c.kubectl_ = std::string(bin) + "/kubectl";
    INFO("no control plane at " << c.dir_ << " (tests/cluster/fixture.sh up DIR starts one)");
    REQUIRE(access(c.kubeconfig_.c_str(), R_OK) == 0);
    return c;
  }();
  return cluster;
}

CommandResult Cluster::kubectl(std::vector<std::string> args, const std::string& input) const {
  args.insert(args.begin(), {kubectl_, "--kubeconfig", kubeconfig_});
  return run_command(args, input);
}

simdjson::dom::element Cluster::get_json(simdjson::dom::parser& parser, const std::vector<std::string>& args) const {
  std::vector<std::string> full = args;
  full.insert(full.end(), {"-o", "json"});
  CommandResult r = kubectl(full);
  INFO("kubectl " << args.front() << " ...: " << r.err);
  REQUIRE(r.status == 0);
  simdjson::dom::element e;
  REQUIRE(parser.parse(r.out).get(e) == simdjson::SUCCESS);
  return e;
}

std::string make_namespace(const std::string& prefix, bool for_pods) {
  static int counter = 0;
  const std::string name = prefix + "-" + std::to_string(getpid() % 100000) + "-" + std::to_string(++counter);
  create_namespace(name, for_pods);
  return name;
}

void create_namespace(const std::string& name, bool for_pods) {
  const Cluster& c = Cluster::get();
  const std::string manifest = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name +
                               "\n  labels: {workload-map.io/enabled: \"true\"}\n";
  CommandResult r = c.kubectl({"create", "-f", "-"}, manifest);
  INFO(r.err);
  REQUIRE(r.status == 0);
  if (for_pods) {
    // Up to 90 s: after a test restarted the API server (the faults suite), the controller manager's
    // service-account controller comes back on its informers' back-off, and was once seen to take over 30 s.
    bool ready = eventually(
        [&] {
          return c.kubectl({"get", "serviceaccount", "default", "-n", name}).status == 0;
        },
        std::chrono::seconds(90));
    INFO("no default service account in " << name);
    REQUIRE(ready);
  }
}

namespace {

// The Pod used to see whether the API server calls the webhook yet.
const char* const kProbePod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"webhook-probe"},
  "spec":{"containers":[{"name":"c","image":"busybox"}]}})";

}  // namespace

void register_webhooks(const std::string& overlay, uint16_t port, const std::string& ca_file) {
  const Cluster& c = Cluster::get();
  CommandResult rendered = c.kubectl({"kustomize", source_path("manifests/" + overlay)});
  INFO(rendered.err);
  REQUIRE(rendered.status == 0);

  std::string ca = read_file(ca_file), ca_base64;
  ca_base64.resize(boost::beast::detail::base64::encoded_size(ca.size()));
  ca_base64.resize(boost::beast::detail::base64::encode(ca_base64.data(), ca.data(), ca.size()));
  // Everything as shipped, but where the API server finds the webhook.
  std::string configurations;
  for (const auto& o : parse_yaml(rendered.out, "manifests/" + overlay)) {
    if (o.kind != "MutatingWebhookConfiguration" && o.kind != "ValidatingWebhookConfiguration") continue;
    CommandResult edited =
        run_command({"jq", "--arg", "base", "https://127.0.0.1:" + std::to_string(port), "--arg", "ca", ca_base64,
                     ".webhooks |= map(.clientConfig = {url: ($base + .clientConfig.service.path), caBundle: $ca})"},
                    simdjson::to_string(o.root));
    INFO(edited.err);
    REQUIRE(edited.status == 0);
    configurations += edited.out;
  }
  REQUIRE(!configurations.empty());
  CommandResult applied = c.kubectl({"apply", "--server-side", "--force-conflicts", "-f", "-"}, configurations);
  INFO(applied.err);
  REQUIRE(applied.status == 0);

  // The API server picks up webhook configurations from an informer: wait until it calls this one.
  static const std::string probe_namespace = make_namespace("webhook-probe", true);
  bool called = eventually(
      [&] {
        CommandResult r =
            c.kubectl({"create", "--dry-run=server", "-n", probe_namespace, "-o", "json", "-f", "-"}, kProbePod);
        return r.status == 0 && r.out.find("workload-map.io/gang-size") != std::string::npos;
      },
      std::chrono::seconds(30));
  INFO("the API server does not call the webhook at port " << port);
  REQUIRE(called);
}

void unregister_webhooks() {
  CommandResult r = Cluster::get().kubectl({"delete", "--ignore-not-found", "mutatingwebhookconfiguration/workload-map",
                                            "validatingwebhookconfiguration/workload-map"});
  INFO(r.err);
  REQUIRE(r.status == 0);
}

namespace {

std::string policy_file_for(const std::string& policy_yaml) {
  static int counter = 0;
  return write_temp("policy-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + ".yaml", policy_yaml);
}

}  // namespace

namespace {

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

RegisteredWebhook::RegisteredWebhook(const std::string& policy_yaml, const std::string& overlay,
                                     std::vector<std::string> extra_args)
    : policy_file_(policy_file_for(policy_yaml)), server_(with({"--policy", policy_file_}, extra_args)) {
  register_webhooks(overlay, server_.port(), test_certificates().ca);
}

void RegisteredWebhook::set_policy(const std::string& policy_yaml) {
  // Written aside and renamed, so that the server never reads half a file.
  const std::string next = policy_file_ + ".next";
  std::ofstream(next, std::ios::binary) << policy_yaml;
  REQUIRE(std::rename(next.c_str(), policy_file_.c_str()) == 0);
}

long long RegisteredWebhook::requests(const std::string& endpoint, const std::string& kind,
                                      const std::string& outcome) {
  HttpsClient client(server_.port());
  const std::string metrics = client.get("/metrics").body;
  // Summed over the operations.
  const std::string head = "workload_map_requests_total{endpoint=\"" + endpoint + "\",operation=\"";
  const std::string tail = "\",kind=\"" + kind + "\",outcome=\"" + outcome + "\"} ";
  long long total = 0;
  for (size_t at = metrics.find(head); at != std::string::npos; at = metrics.find(head, at + 1)) {
    const size_t end = metrics.find('\n', at);
    const std::string line = metrics.substr(at, end - at);
    const size_t t = line.find(tail);
    if (t != std::string::npos) total += std::stoll(line.substr(t + tail.size()));
  }
  return total;
}

long long metric(uint16_t port, const std::string& series) {
  const std::string text = HttpsClient(port).get("/metrics").body;
  const size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + series.size() + 2));
}

bool ready(uint16_t port) { return HttpsClient(port).get("/readyz").status == 200; }

bool eventually(const std::function<bool()>& check, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (check()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

}  // namespace wm::test
