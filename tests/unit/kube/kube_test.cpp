// The API client's parts that need no API server: kubeconfig and in-cluster configuration, the watch stream's
// framing, the Lease rule, back-off, the work queue. The protocol itself is tested against the real API server
// (tests/cluster/cluster_side_test.cpp).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "controllers/work_queue.h"
#include "kube/backoff.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/leader_election.h"
#include "kube/reflector.h"
#include "kube/trim.h"
#include "mapper/catalog/definition_loader.h"
#include "policy/state_store.h"
#include "tests/support/fake_api.h"
#include "tests/support/result_matchers.h"
#include "tests/support/server_process.h"
#include "tests/support/test_support.h"

using namespace wm;
using namespace std::chrono_literals;

namespace {

std::string dir_with(const std::map<std::string, std::string>& files) {
  static int n = 0;
  const std::string dir =
      std::filesystem::temp_directory_path() / ("wm-kube-test-" + std::to_string(getpid()) + "-" + std::to_string(++n));
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : files) std::ofstream(dir + "/" + name) << text;
  return dir;
}

}  // namespace

TEST_CASE("kubeconfig: the current context's cluster, user and namespace, with files relative to the kubeconfig") {
  const std::string dir =
      dir_with({{"ca.crt", "CA PEM"}, {"admin.crt", "CERT PEM"}, {"admin.key", "KEY PEM"}, {"config", R"(apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://10.0.0.1:6443"}
- name: test
  cluster: {server: "https://127.0.0.1:23960", certificate-authority: ca.crt}
users:
- name: admin
  user: {client-certificate: admin.crt, client-key: admin.key}
contexts:
- name: other
  context: {cluster: other, user: admin}
- name: test
  context: {cluster: test, user: admin, namespace: team-a}
current-context: test
)"}});
  auto config = kube::config_from_kubeconfig(dir + "/config");
  REQUIRE_THAT(config, test::IsOk());
  CHECK(config->host == "127.0.0.1");
  CHECK(config->port == "23960");
  CHECK(config->server() == "https://127.0.0.1:23960");
  CHECK(config->ca_pem == "CA PEM");
  CHECK(config->client_certificate_pem == "CERT PEM");
  CHECK(config->client_key_pem == "KEY PEM");
  CHECK(config->namespace_name == "team-a");
  CHECK(config->source == "kubeconfig " + dir + "/config");
}

TEST_CASE("kubeconfig: inline data, tokens, and clear refusals") {
  const std::string dir = dir_with(
      {{"inline", R"(clusters:
- name: c
  cluster: {server: "https://[::1]:443", certificate-authority-data: Q0EgUEVN, tls-server-name: api.internal}
users:
- name: u
  user: {token: abc.def}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)"},
       {"exec", R"(clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: aws}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)"},
       {"http", R"(clusters: [{name: c, cluster: {server: "http://h:8080"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)"},
       {"wrapped", R"(clusters:
- name: c
  cluster:
    server: https://h
    certificate-authority-data: |
      Q0EgUEVN
      IQ==
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)"},
       {"unpadded", R"(clusters: [{name: c, cluster: {server: "https://h", certificate-authority-data: "Q0EgUEVNIQ"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)"},
       {"not-base64", R"(clusters: [{name: c, cluster: {server: "https://h", certificate-authority-data: "Q0E*UEVN"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)"},
       {"missing", "clusters: []\ncontexts: []\ncurrent-context: gone\n"},
       {"broken", "clusters: [\n"}});
  auto config = kube::config_from_kubeconfig(dir + "/inline");
  REQUIRE(config);
  CHECK(config->host == "::1");
  CHECK(config->port == "443");
  CHECK(config->ca_pem == "CA PEM");
  CHECK(config->tls_server_name == "api.internal");
  CHECK(config->token == "abc.def");
  config = kube::config_from_kubeconfig(dir + "/wrapped");
  REQUIRE(config);
  CHECK(config->ca_pem == "CA PEM!");  // base64 over two lines, with padding
  // Without padding: Beast's decoder writes past decoded_size() for such a tail (ASan, on the kept fuzz corpus).
  config = kube::config_from_kubeconfig(dir + "/unpadded");
  REQUIRE_THAT(config, test::IsOk());
  CHECK(config->ca_pem == "CA PEM!");

  CHECK_THAT(kube::config_from_kubeconfig(dir + "/not-base64").error(),
             Catch::Contains("certificate-authority-data is not base64"));
  CHECK_THAT(kube::config_from_kubeconfig(dir + "/exec").error(),
             Catch::Contains("exec and auth-provider plugins are not supported"));
  CHECK_THAT(kube::config_from_kubeconfig(dir + "/http").error(), Catch::Contains("server must be an https:// URL"));
  CHECK_THAT(kube::config_from_kubeconfig(dir + "/missing").error(), Catch::Contains("no context named gone"));
  CHECK_THAT(kube::config_from_kubeconfig(dir + "/broken").error(), Catch::StartsWith(dir + "/broken:"));
  CHECK_THAT(kube::config_from_kubeconfig(dir + "/absent").error(), Catch::Contains("cannot read the kubeconfig"));
}

TEST_CASE("in-cluster: the service account's token, CA and namespace, and the token re-read when rotated") {
  const std::string dir = dir_with({{"token", "first\n"}, {"ca.crt", "CA"}, {"namespace", "workload-map\n"}});
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto config = kube::config_in_cluster(dir);
  REQUIRE_THAT(config, test::IsOk());
  CHECK(config->server() == "https://10.96.0.1:443");
  CHECK(config->namespace_name == "workload-map");
  CHECK(config->ca_pem == "CA");
  kube::TokenSource tokens(*config);
  CHECK(tokens.token() == "first");
  // The kubelet writes a new file and swaps it in.
  std::ofstream(dir + "/token.next") << "second-and-longer";
  std::filesystem::rename(dir + "/token.next", dir + "/token");
  CHECK(tokens.token() == "second-and-longer");

  unsetenv("KUBERNETES_SERVICE_HOST");
  CHECK_THAT(kube::config_in_cluster(dir).error(), Catch::Contains("not in a pod"));
}

TEST_CASE("a client is refused for certificates it cannot use") {
  kube::Config config;
  config.host = "127.0.0.1";
  config.port = "1";
  config.tls_server_name = "127.0.0.1";
  config.ca_pem = "not a certificate";
  CHECK_THAT(kube::Client::make(config).error(), Catch::StartsWith("the cluster CA"));
}

TEST_CASE("a client reports a server that is not there, within its deadline") {
  kube::Config config;
  config.host = "127.0.0.1";
  config.port = "1";  // nothing listens
  config.tls_server_name = "127.0.0.1";
  config.insecure_skip_verify = true;
  auto made = kube::Client::make(config);
  REQUIRE_THAT(made, test::IsOk());
  auto& client = *made;
  const auto started = std::chrono::steady_clock::now();
  kube::Response r = client->request("GET", "/version", {}, kube::kJson, 2s);
  CHECK(std::chrono::steady_clock::now() - started < 3s);
  CHECK(r.status == 0);
  CHECK(r.describe().find("connect https://127.0.0.1:1") == 0);
  std::atomic<bool> stop{true};
  CHECK(client
            ->stream(
                "/api/v1/pods?watch=1", [](std::string_view) { return true; }, 2s, &stop)
            .status == 0);
}

TEST_CASE("a watch stream is split into events at newlines, however the bytes arrive") {
  kube::Reflector::Splitter splitter;
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.feed(R"({"type":"ADDED","object":{"a":1}})"
                "\n"
                R"({"type":"MOD)",
                collect);
  CHECK(lines == std::vector<std::string>{R"({"type":"ADDED","object":{"a":1}})"});
  splitter.feed(R"(IFIED"})", collect);
  CHECK(lines.size() == 1);
  splitter.feed("\n\n", collect);
  CHECK(lines == std::vector<std::string>{R"({"type":"ADDED","object":{"a":1}})", R"({"type":"MODIFIED"})"});
  CHECK(splitter.pending.empty());
}

TEST_CASE("the Lease: its holder renews, nobody takes it before a whole duration unseen, an empty one is free") {
  kube::LeaseRecord lease;
  lease.holder = "a";
  lease.duration_seconds = 15;
  const auto seen = std::chrono::steady_clock::now();
  CHECK(kube::may_take_lease(lease, "a", seen, seen + 1h));
  CHECK_FALSE(kube::may_take_lease(lease, "b", seen, seen + 14s));
  CHECK(kube::may_take_lease(lease, "b", seen, seen + 15s));
  lease.holder.clear();  // given up on shutdown
  CHECK(kube::may_take_lease(lease, "b", seen, seen));
  const std::string t = kube::micro_time_now();
  CHECK(t.size() == 27);
  CHECK(t[10] == 'T');
  CHECK(t[19] == '.');
  CHECK(t.back() == 'Z');
}

TEST_CASE("back-off doubles from its start to its cap, with jitter, and starts over on reset") {
  kube::Backoff backoff(100ms, 1s);
  std::vector<long long> waits;
  for (int i = 0; i < 6; ++i) waits.push_back(backoff.next().count());
  CHECK(waits[0] >= 80);
  CHECK(waits[0] <= 120);
  CHECK(waits[3] >= 640);
  CHECK(waits[3] <= 960);
  CHECK(waits[5] <= 1200);
  CHECK(waits[5] >= 800);
  backoff.reset();
  CHECK(backoff.next().count() <= 120);
}

TEST_CASE("the work queue: each key once however often added, in due order, retries later") {
  controllers::WorkQueue queue;
  std::atomic<bool> stop{false};
  queue.add("b", 50ms);
  queue.add("a");
  queue.add("a");
  queue.add("b");  // the earlier time wins
  CHECK(queue.size() == 2);
  std::string key;
  REQUIRE(queue.next(key, stop));
  const std::string first = key;
  REQUIRE(queue.next(key, stop));
  CHECK(std::set<std::string>{first, key} == std::set<std::string>{"a", "b"});
  queue.add("c", 100ms);
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(queue.next(key, stop));
  CHECK(key == "c");
  CHECK(std::chrono::steady_clock::now() - started >= 90ms);
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stop = true;
  });
  CHECK_FALSE(queue.next(key, stop));
  stopper.join();
}

TEST_CASE("the work queue gives a key to one worker at a time, and a key added again meanwhile comes back after done") {
  controllers::WorkQueue queue;
  std::atomic<bool> stop{false};
  queue.add("a");
  std::string key;
  REQUIRE(queue.next(key, stop));
  REQUIRE(key == "a");
  queue.add("a");  // changed while a worker reconciles it
  queue.add("b");
  REQUIRE(queue.next(key, stop));
  CHECK(key == "b");  // not "a": its worker is not done
  std::thread worker([&] {
    const controllers::WorkQueue::Holding holding(queue, "a");
    std::this_thread::sleep_for(100ms);
  });
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(queue.next(key, stop));
  CHECK(key == "a");
  CHECK(std::chrono::steady_clock::now() - started >= 90ms);
  worker.join();
}

TEST_CASE("a watch cache keeps objects without metadata.managedFields, and everything else as it was") {
  simdjson::dom::parser parser;
  const std::string object =
      R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","managedFields":[{"manager":"kubectl"}],)"
      R"("labels":{"k":"v \"q\""}},"spec":{"n":1.5,"l":[true,null]},"status":{"managedFields":1}})";
  CHECK(kube::without_managed_fields(parser.parse(object)) ==
        R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","labels":{"k":"v \"q\""}},)"
        R"("spec":{"n":1.5,"l":[true,null]},"status":{"managedFields":1}})");
  CHECK(kube::without_managed_fields(parser.parse(std::string(R"({"metadata":"odd"})"))) == R"({"metadata":"odd"})");
  CHECK(kube::without_managed_fields(parser.parse(std::string("[1]"))) == "[1]");
}

TEST_CASE("a client reuses its idle connections, across threads, and opens a new one only when all are busy") {
  test::ServerProcess server;  // any HTTPS server that keeps connections alive will do: the webhook's /healthz
  kube::Config config;
  config.host = "127.0.0.1";
  config.port = std::to_string(server.port());
  config.tls_server_name = "127.0.0.1";
  config.ca_pem = test::read_file(test::test_certificates().ca);
  auto made = kube::Client::make(config);
  REQUIRE_THAT(made, test::IsOk());
  auto& client = *made;
  for (int i = 0; i < 20; ++i) REQUIRE(client->request("GET", "/healthz").status == 200);
  CHECK(client->connections_opened() == 1);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) ok += client->request("GET", "/healthz").status == 200;
    });
  for (auto& t : threads) t.join();
  CHECK(ok == 40);
  CHECK(client->connections_opened() <= 5);
  // A server that went away: the idle connections are seen closed, and the next request fails at once.
  server.stop();
  const auto started = std::chrono::steady_clock::now();
  CHECK(client->request("GET", "/healthz", {}, kube::kJson, 2s).status == 0);
  CHECK(std::chrono::steady_clock::now() - started < 1s);
}

TEST_CASE("query values are percent-encoded") {
  CHECK(kube::url_encode("workload-map.io/profile") == "workload-map.io%2Fprofile");
  CHECK(kube::url_encode("a=b,c!=d") == "a%3Db%2Cc%21%3Dd");
}

TEST_CASE("watch events: objects with their resourceVersion, bookmarks, 410 Gone, errors, and refusals that say why") {
  simdjson::dom::parser parser;
  auto added = kube::decode_watch_event(
      R"({"type":"ADDED","object":{"kind":"Karta","metadata":{"name":"a","resourceVersion":"17"}}})", parser);
  REQUIRE(added);
  CHECK(added->type == kube::WatchEvent::Type::Added);
  CHECK(added->resource_version == "17");
  CHECK(added->object_json == R"({"kind":"Karta","metadata":{"name":"a","resourceVersion":"17"}})");
  auto bookmark =
      kube::decode_watch_event(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"99"}}})", parser);
  REQUIRE(bookmark);
  CHECK(bookmark->type == kube::WatchEvent::Type::Bookmark);
  CHECK(bookmark->resource_version == "99");
  CHECK(bookmark->object_json.empty());
  auto gone = kube::decode_watch_event(
      R"x({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old resource version: 1 (2000)"}})x",
      parser);
  REQUIRE(gone);
  CHECK(gone->type == kube::WatchEvent::Type::Expired);
  auto error = kube::decode_watch_event(R"({"type":"ERROR","object":{"code":500,"message":"etcd is sad"}})", parser);
  REQUIRE(error);
  CHECK(error->type == kube::WatchEvent::Type::Error);
  CHECK(error->message == "etcd is sad");
  CHECK(kube::decode_watch_event("{\"type\":\"ADDED\"", parser).error() == "a watch event that is not a JSON object");
  CHECK(kube::decode_watch_event(R"({"type":"ADDED","object":3})", parser).error() ==
        "a watch event without an object");
  CHECK(kube::decode_watch_event(R"({"type":"RENAMED","object":{}})", parser).error() ==
        "a watch event of unknown type \"RENAMED\"");
}

namespace wm {

TEST_CASE("a reflector types list items by their collection, and hands over what its handler keeps of each") {
  test::FakeApi api;
  // A list item has no apiVersion or kind of its own; its owner reference's are not its.
  api.answer("GET", "/apis/batch/v1/jobs", 200,
             R"({"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","ownerReferences":[)"
             R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"t","uid":"1"}]}}]})");
  api.answer("WATCH", "/apis/batch/v1/jobs", 200,
             R"({"type":"ADDED","object":{"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"b"}}})"
             "\n");
  for (const bool keeping : {false, true}) {
    kube::KeepObject keep;
    if (keeping)
      keep = [](simdjson::dom::element o) { return "{\"name\":\"" + test::string_at(o, "/metadata/name") + "\"}"; };
    std::atomic<bool> stop{false};
    std::vector<std::string> listed, changed;
    kube::Reflector reflector(api, {"/apis/batch/v1/jobs", "batch/v1", "Job", "", keep},
                              {[&](std::vector<std::string> objects) { listed = std::move(objects); },
                               [&](kube::EventType, const std::string& object) {
                                 changed.push_back(object);
                                 stop = true;
                               },
                               [](const std::string&) {},
                               {}});
    std::thread running([&] { reflector.run(stop); });
    running.join();
    REQUIRE(listed.size() == 1);
    REQUIRE(changed.size() == 1);
    if (keeping) {
      CHECK(listed[0] == R"({"name":"a"})");
      CHECK(changed[0] == R"({"name":"b"})");
    } else {
      CHECK(listed[0].starts_with(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"a",)"));
      CHECK(changed[0] == R"({"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"b"}})");
    }
  }
}

}  // namespace wm
