// Bad input, slow and broken clients, certificate rotation and SIGTERM: each gets its clear answer
// or is cut off, and the server keeps serving everyone else.
#include <sys/resource.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "base/json/json_writer.h"
#include "tests/e2e/webhook_test_support.h"

using namespace wm;
using namespace wm::test;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

bool healthy(uint16_t port) {
  try {
    return HttpsClient(port).get("/healthz").body == "ok\n";
  } catch (const std::exception&) {
    return false;
  }
}

// A raw TCP connection to the server, for clients that do not speak TLS properly.
struct RawClient {
  net::io_context ioc;
  tcp::socket socket{ioc};
  explicit RawClient(uint16_t port) { socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port)); }
  void send(const std::string& bytes) { net::write(socket, net::buffer(bytes)); }
  // Everything until the server closes (or `seconds` pass).
  std::string read_all() {
    std::string out;
    boost::system::error_code ec;
    char buf[4096];
    while (true) {
      size_t n = socket.read_some(net::buffer(buf), ec);
      if (ec) break;
      out.append(buf, n);
    }
    return out;
  }
};

std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_connect(uint16_t port) {
  static net::io_context ioc;
  static boost::asio::ssl::context ctx = [] {
    boost::asio::ssl::context c(boost::asio::ssl::context::tls_client);
    c.load_verify_file(test_certificates().ca);
    return c;
  }();
  auto stream = std::make_unique<boost::beast::ssl_stream<boost::beast::tcp_stream>>(ioc, ctx);
  boost::beast::get_lowest_layer(*stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  boost::beast::get_lowest_layer(*stream).expires_after(std::chrono::seconds(20));
  stream->handshake(boost::asio::ssl::stream_base::client);
  return stream;
}

std::string jobset_review(const std::string& uid = "req") {
  auto object = std::move(parse_file(source_path("examples/jobset-12-gpus.yaml")).front());
  return admission_review(json::element_json(object.root), "team-a", "CREATE", uid);
}

}  // namespace

TEST_CASE("malformed AdmissionReviews get HTTP 400 with a reason") {
  ServerProcess server;
  HttpsClient client(server.port());
  struct Case {
    std::string body, reason;
  } cases[] = {
      {"this is not json", "the body is not JSON"},
      {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}})",
       "apiVersion must be admission.k8s.io/v1"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE","object":{}}})",
       "request.uid is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE"}})",
       "request.object is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "has no request"},
      {"[1,2,3]", "not an AdmissionReview"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    auto res = client.post("/mutate", c.body);
    CHECK(res.status == 400);
    CHECK_THAT(res.body, Catch::Contains(c.reason));
  }
  CHECK(client.get("/nowhere").status == 404);
  CHECK(client.get("/mutate").status == 405);
  CHECK(healthy(server.port()));
}

TEST_CASE("a 10 MiB body is refused with 413 and deep nesting with 400, and the server goes on") {
  ServerProcess server;
  {
    // The answer comes as soon as the headers announce too much: the 10 MiB need not be sent.
    auto stream = tls_connect(server.port());
    net::write(*stream, net::buffer("POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                                    std::to_string(10 << 20) + "\r\n\r\n"));
    boost::beast::flat_buffer buffer;
    boost::beast::http::response<boost::beast::http::string_body> res;
    boost::beast::http::read(*stream, buffer, res);
    CHECK(res.result_int() == 413);
    CHECK_THAT(res.body(), Catch::Contains("over 3145728 bytes"));
  }
  {
    HttpsClient client(server.port());
    std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto res = client.post("/mutate", deep);
    CHECK(res.status == 400);
    CHECK_THAT(res.body, Catch::Contains("not JSON"));
  }
  CHECK(healthy(server.port()));
}

TEST_CASE("plain HTTP on the TLS port gets a clear 400") {
  ServerProcess server;
  RawClient raw(server.port());
  raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  std::string answer = raw.read_all();
  CHECK_THAT(answer, Catch::StartsWith("HTTP/1.1 400"));
  CHECK_THAT(answer, Catch::Contains("HTTPS"));
  CHECK(healthy(server.port()));
}

TEST_CASE("truncated TLS and garbage handshakes are dropped without harm") {
  ServerProcess server;
  {
    RawClient raw(server.port());
    raw.send(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));  // half a ClientHello
  }                                                                             // and gone
  {
    RawClient raw(server.port());
    raw.send(std::string("\x16\x03\x01\x00\x05garbagegarbage", 19));
    raw.read_all();
  }
  CHECK(healthy(server.port()));
}

TEST_CASE("a slow client is cut off by the read timeout while others are served") {
  ServerProcess server({"--read-timeout-ms", "1000"});
  auto started = std::chrono::steady_clock::now();
  RawClient slow(server.port());
  slow.send(std::string("\x16\x03\x01", 3));  // starts a TLS record, then stalls
  for (int i = 0; i < 5; ++i) CHECK(healthy(server.port()));
  slow.read_all();  // returns once the server closes the connection
  auto held = std::chrono::steady_clock::now() - started;
  CHECK(held >= std::chrono::milliseconds(900));
  CHECK(held < std::chrono::seconds(5));
  CHECK(healthy(server.port()));
}

TEST_CASE("certificates rotated while requests flow: no request fails") {
  // A directory of its own, signed by the test CA, so that rotation does not disturb other tests.
  const auto& base = test_certificates();
  std::string dir = base.dir + "-rotate";
  std::string out;
  REQUIRE(run("mkdir -p " + dir + " && cp " + base.dir + "/ca.* " + dir + "/ && " + source_path("certs/make-certs.sh") +
                  " --out " + dir + " --reuse-ca --extra-san IP:127.0.0.1 >/dev/null 2>&1",
              out) == 0);
  ServerProcess server({"--cert", dir + "/tls.crt", "--key", dir + "/tls.key"}, false);
  std::atomic<bool> done{false};
  std::atomic<int> ok{0}, failed{0};
  const std::string review = jobset_review();
  auto load = [&](bool keep_alive) {
    std::unique_ptr<HttpsClient> client;
    while (!done) {
      try {
        if (!client || !keep_alive) client = std::make_unique<HttpsClient>(server.port());
        auto res = client->post("/mutate", review);
        (res.status == 200 ? ok : failed)++;
      } catch (const std::exception& e) {
        failed++;
        client.reset();
      }
    }
  };
  std::thread fresh(load, false), kept(load, true);
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    REQUIRE(run(source_path("certs/make-certs.sh") + " --out " + dir +
                    " --reuse-ca --extra-san IP:127.0.0.1 >/dev/null 2>&1",
                out) == 0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  done = true;
  fresh.join();
  kept.join();
  CHECK(failed == 0);
  CHECK(ok > 50);
  auto metrics = HttpsClient(server.port()).get("/metrics").body;
  CHECK_THAT(metrics, Catch::Contains(R"(workload_map_config_reloads_total{config="certificate",result="ok"})"));
}

TEST_CASE("a broken policy or definition replacing a good one keeps the last good one live") {
  std::string policy = write_temp("policy-reload.yaml", policy_with_rules("- name: all\n  profile: volcano\n"));
  std::string defs = write_temp("defs-marker", "");
  defs = defs.substr(0, defs.rfind('/')) + "/defs-reload";
  std::string out;
  REQUIRE(run("mkdir -p " + defs, out) == 0);
  ServerProcess server({"--policy", policy, "--definitions", defs});
  HttpsClient client(server.port());
  const std::string review = jobset_review();
  auto scheduler_in_patch = [&] { return parse_answer(client.post("/mutate", review).body).patch; };
  CHECK_THAT(scheduler_in_patch(), Catch::Contains("\"volcano\""));

  std::ofstream(policy) << "rules: [this is: not: valid";
  std::ofstream(defs + "/broken.yaml") << "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n";
  bool reported = false;
  for (int i = 0; i < 50 && !reported; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto metrics = client.get("/metrics").body;
    reported = metrics.find(R"(workload_map_config_last_reload_ok{config="policy"} 0)") != std::string::npos &&
               metrics.find(R"(workload_map_config_last_reload_ok{config="definitions"} 0)") != std::string::npos;
  }
  CHECK(reported);
  CHECK_THAT(server.log(), Catch::Contains("policy reload failed; the last good policy stays live"));
  CHECK_THAT(server.log(), Catch::Contains("definitions reload failed"));
  CHECK_THAT(scheduler_in_patch(), Catch::Contains("\"volcano\""));  // still the last good policy
  CHECK(client.get("/readyz").status == 200);
}

TEST_CASE("SIGTERM: the request in flight finishes, then the server exits 0") {
  ServerProcess server;
  HttpsClient idle(server.port());  // a kept-alive connection with nothing in flight
  CHECK(idle.get("/healthz").status == 200);

  // A request whose body is still arriving when SIGTERM comes.
  auto connection = tls_connect(server.port());
  auto& stream = *connection;
  const std::string body = jobset_review("in-flight");
  const std::string head =
      "POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n";
  net::write(stream, net::buffer(head + body.substr(0, body.size() / 2)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  int exit_code = -2;
  std::thread stopper([&] { exit_code = server.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  net::write(stream, net::buffer(body.substr(body.size() / 2)));
  boost::beast::flat_buffer buffer;
  boost::beast::http::response<boost::beast::http::string_body> res;
  boost::beast::http::read(stream, buffer, res);
  CHECK(res.result_int() == 200);
  CHECK(parse_answer(res.body()).uid == "in-flight");
  stopper.join();
  CHECK(exit_code == 0);
  CHECK_THAT(server.log(), Catch::Contains("draining"));
  CHECK_THAT(server.log(), Catch::Contains("stopped"));
}

TEST_CASE("SIGTERM with a shutdown delay: not ready, still answering new connections and closing each, then exit 0") {
  ServerProcess server({"--shutdown-delay-ms", "1500"});
  CHECK(HttpsClient(server.port()).get("/readyz").status == 200);
  const auto signalled = std::chrono::steady_clock::now();
  REQUIRE(kill(server.pid(), SIGTERM) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // A caller the endpoints have not yet moved is still answered, and told to close: its next request opens a
  // connection the Service sends elsewhere.
  auto connection = tls_connect(server.port());
  const std::string body = jobset_review("during-delay");
  net::write(*connection, net::buffer("POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                      "Content-Length: " +
                                      std::to_string(body.size()) + "\r\n\r\n" + body));
  boost::beast::flat_buffer buffer;
  boost::beast::http::response<boost::beast::http::string_body> res;
  boost::beast::http::read(*connection, buffer, res);
  CHECK(res.result_int() == 200);
  CHECK(parse_answer(res.body()).uid == "during-delay");
  CHECK_FALSE(res.keep_alive());
  CHECK(HttpsClient(server.port()).get("/readyz").status == 503);
  CHECK(server.wait_exit(10) == 0);
  CHECK(std::chrono::steady_clock::now() - signalled >= std::chrono::milliseconds(1400));
  CHECK_THAT(server.log(), Catch::Contains("terminating: not ready"));
  CHECK_THAT(server.log(), Catch::Contains("stopped"));
}

TEST_CASE("a second SIGTERM in the shutdown delay drains at once") {
  ServerProcess server({"--shutdown-delay-ms", "60000"});
  REQUIRE(kill(server.pid(), SIGTERM) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(server.running());
  CHECK(server.stop(10) == 0);  // SIGTERM again
}

namespace {

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

TEST_CASE("1,000 concurrent connections are all served, then the server recovers") {
  raise_fd_limit();
  // Opening a thousand TLS connections one by one takes a while (longer under sanitizers): the
  // first must not reach the read timeout before their turn comes.
  ServerProcess server({"--read-timeout-ms", "120000"});
  std::vector<std::unique_ptr<HttpsClient>> clients;
  for (int i = 0; i < 1000; ++i) clients.push_back(std::make_unique<HttpsClient>(server.port()));
  const std::string review = jobset_review();
  int ok = 0;
  for (auto& c : clients) ok += c->post("/mutate", review).status == 200;
  CHECK(ok == 1000);
  clients.clear();
  std::string metrics;
  bool recovered = false;
  for (int i = 0; i < 50 && !recovered; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    metrics = HttpsClient(server.port()).get("/metrics").body;
    recovered = metrics.find("workload_map_open_connections 1\n") != std::string::npos;
  }
  INFO(metrics.substr(metrics.find("workload_map_open_connections")));
  CHECK(recovered);
  CHECK(healthy(server.port()));
}

TEST_CASE("slowloris clients do not starve the others") {
  raise_fd_limit();
  ServerProcess server({"--read-timeout-ms", "3000"});
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 200; ++i) {
    slow.push_back(std::make_unique<RawClient>(server.port()));
    slow.back()->send(std::string("\x16\x03\x01", 3));  // a TLS record that never completes
  }
  HttpsClient client(server.port());
  const std::string review = jobset_review();
  double worst_ms = 0;
  for (int i = 0; i < 200; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    CHECK(client.post("/mutate", review).status == 200);
    worst_ms =
        std::max(worst_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (i % 20 == 0)
      for (auto& s : slow) {
        boost::system::error_code ec;
        net::write(s->socket, net::buffer("\x02", 1), ec);  // a byte now and then keeps them "alive"
      }
  }
  // Starved, a request would wait for the slow clients' 3 s read timeout; the margin is for
  // sanitizer builds and parallel tests.
  CHECK(worst_ms < 1500);
  CHECK(healthy(server.port()));
}

TEST_CASE("a workload with fifty thousand pod templates is answered, bounded, by the failure policy") {
  std::string jobs = "[";
  for (int i = 0; i < 50000; ++i) jobs += std::string(i ? "," : "") + R"({"template":{"spec":{"template":{}}}})";
  jobs += "]";
  const std::string object =
      R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"huge"},"spec":{"replicatedJobs":)" +
      jobs + "}}";
  REQUIRE(object.size() < (3 << 20));
  ServerProcess server;
  HttpsClient client(server.port());
  auto t0 = std::chrono::steady_clock::now();
  auto answer = parse_answer(client.post("/mutate", admission_review(object, "x")).body);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // bounded, sanitizers included
  CHECK(answer.allowed);
  // Under load the review's deadline (250 ms of expressions) may pass first, or the forked jq end its evaluation of the
  // 3 MiB object with its own error (once, in a warm CI run: "stop"): the failure policy answers either way.
  CHECK_THAT(answer.warnings, Catch::Contains("workload-map cannot understand JobSet x/huge"));
  CHECK(healthy(server.port()));
}

TEST_CASE("a definition whose jq runs away is stopped on time: admission follows the failure policy") {
  std::string dir = write_temp("defs-marker", "");
  dir = dir.substr(0, dir.rfind('/')) + "/defs-runaway";
  std::string out;
  REQUIRE(run("mkdir -p " + dir, out) == 0);
  // Valid jq, allowed by the load-time guard, but a billion steps over this object.
  std::ofstream(dir + "/sweep.yaml") << R"(apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: example-sweep
spec:
  structureDefinition:
    rootComponent:
      name: sweep
      kind: {group: example.com, version: v1, kind: Sweep}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: '[.spec.points[] as $a | .spec.points[] as $b | .spec.points[] as $c | 1] | length'
      statusDefinition:
        statusMappings:
          running:
          - byExpression: {expression: '.status.ready == true', expectedResult: "true"}
)";
  std::string points;
  for (int i = 0; i < 1000; ++i) points += (i ? "," : "") + std::to_string(i);
  const std::string object =
      R"({"apiVersion":"example.com/v1","kind":"Sweep","metadata":{"name":"s"},"spec":{"points":[)" + points +
      R"(],"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}})";
  std::string policy = write_temp("policy-runaway.yaml", policy_with_rules(R"(- name: strict
  namespaces: [strict]
  profile: kai
  failurePolicy: Fail
- name: lenient
  profile: kai
  failurePolicy: Ignore
)"));
  ServerProcess server({"--definitions", dir, "--policy", policy});
  HttpsClient client(server.port());

  auto t0 = std::chrono::steady_clock::now();
  auto lenient = parse_answer(client.post("/mutate", admission_review(object, "team-a")).body);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(lenient.allowed);
  CHECK(lenient.patch.empty());
  CHECK_THAT(lenient.warnings, Catch::Contains("stopped: the expression ran longer than 100 ms") &&
                                   Catch::Contains("failure policy Ignore"));

  auto strict = client.post("/mutate", admission_review(object, "strict"));
  CHECK(strict.status == 200);
  CHECK_THAT(strict.body, Catch::Contains(R"("allowed":false)") && Catch::Contains(R"("code":422)") &&
                              Catch::Contains("stopped: the expression ran longer than 100 ms"));
  CHECK(healthy(server.port()));
  CHECK_THAT(parse_answer(client.post("/mutate", jobset_review()).body).patch, Catch::Contains("kai-scheduler"));
}
