#include "tests/support/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "base/json/json_writer.h"
#include "tests/support/test_support.h"

extern char** environ;

namespace wm::test {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

const TestCertificates& test_certificates() {
  static const TestCertificates certs = [] {
    TestCertificates c;
    c.dir = write_temp("certs-marker", "");
    c.dir = c.dir.substr(0, c.dir.rfind('/')) + "/certs";
    std::string out;
    int status = run(source_path("certs/make-certs.sh") + " --out " + c.dir +
                         " --extra-san IP:127.0.0.1 --extra-san DNS:localhost >/dev/null 2>&1",
                     out);
    REQUIRE(status == 0);
    c.ca = c.dir + "/ca.crt";
    c.certificate = c.dir + "/tls.crt";
    c.key = c.dir + "/tls.key";
    return c;
  }();
  return certs;
}

ServerProcess::ServerProcess(std::vector<std::string> args, bool default_tls) {
  static int counter = 0;
  log_file_ = write_temp("server-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + ".log", "");
  std::vector<std::string> argv = {WM_CLI, "serve", "--listen", "127.0.0.1:0"};
  if (default_tls) {
    const auto& certs = test_certificates();
    argv.insert(argv.end(), {"--cert", certs.certificate, "--key", certs.key});
  }
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  int out[2];
  REQUIRE(pipe(out) == 0);
  // fork and exec rather than posix_spawn: the server must be told to stop when the test process dies however it
  // dies (a ctest timeout kills it), so that no server outlives its test (PR_SET_PDEATHSIG). Only async-signal-safe
  // calls between fork and exec.
  const pid_t parent = getpid();
  const int log_fd = open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(log_fd >= 0);
  pid_ = fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);  // the parent is already gone
    dup2(out[1], 1);
    dup2(log_fd, 2);
    close(out[0]);
    execve(cargv[0], cargv.data(), environ);
    _exit(127);
  }
  close(log_fd);
  close(out[1]);

  // The first line says where it listens.
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  banner_ = line;
  close(out[0]);
  std::smatch m;
  INFO("server said: " << line << "\nlog: " << log());
  REQUIRE(std::regex_search(line, m, std::regex(R"(https://127\.0\.0\.1:(\d+))")));
  port_ = static_cast<uint16_t>(std::stoi(m[1]));
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) stop(5);
}

namespace {

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

bool ServerProcess::running() {
  if (pid_ <= 0) return false;
  int status;
  if (waitpid(pid_, &status, WNOHANG) == 0) return true;
  exit_status_ = exit_code(status);
  pid_ = -1;
  return false;
}

int ServerProcess::wait_exit(int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (running()) {
    if (std::chrono::steady_clock::now() > deadline) return -2;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return exit_status_;
}

int ServerProcess::stop(int seconds) {
  if (pid_ <= 0) return exit_status_;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return exit_status_ = exit_code(status);
}

std::string ServerProcess::log() const { return read_file(log_file_); }

HttpsClient::HttpsClient(uint16_t port, const std::string& ca_file) : ctx_(ssl::context::tls_client) {
  ctx_.load_verify_file(ca_file);
  ctx_.set_verify_mode(ssl::verify_peer);
  ctx_.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
  stream_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc_, ctx_);
  beast::get_lowest_layer(*stream_).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(*stream_).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  stream_->handshake(ssl::stream_base::client);
}

HttpsClient::~HttpsClient() {
  beast::error_code ignored;
  beast::get_lowest_layer(*stream_).socket().close(ignored);
}

HttpResponse HttpsClient::request(bool post, const std::string& target, const std::string& body) {
  http::request<http::string_body> req{post ? http::verb::post : http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(true);
  if (post) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
  }
  beast::get_lowest_layer(*stream_).expires_after(std::chrono::seconds(20));
  http::write(*stream_, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  http::read(*stream_, buffer, parser);
  return {static_cast<int>(parser.get().result_int()), parser.get().body()};
}

HttpResponse HttpsClient::post(const std::string& target, const std::string& body) {
  return request(true, target, body);
}
HttpResponse HttpsClient::get(const std::string& target) { return request(false, target, ""); }

std::string admission_review(const std::string& object_json, const std::string& namespace_name,
                             const std::string& operation, const std::string& uid, const std::string& old_object_json) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":)" + json::json_string(uid) +
         R"(,"namespace":)" + json::json_string(namespace_name) + R"(,"operation":)" + json::json_string(operation) +
         R"(,"userInfo":{"username":"test"},"object":)" + object_json +
         (old_object_json.empty() ? "" : R"(,"oldObject":)" + old_object_json) + "}}";
}

std::string policy_with_rules(const std::string& rules) {
  const std::string policy = read_file(source_path("manifests/base/policy.yaml"));
  return policy.substr(0, policy.find("\nrules:")) + "\nrules:\n" + rules;
}

std::string gpu_limit_policy(int gpus) {
  return policy_with_rules(R"(- name: team
  namespaces: ["*"]
  kinds: ["*"]
  profile: kai
  queue: {default: team-a}
  limits:
    resources: {nvidia.com/gpu: )" +
                           std::to_string(gpus) + "}\n");
}

std::string base64_decode(const std::string& text) {
  std::string out(beast::detail::base64::decoded_size(text.size()), '\0');
  auto [written, read] = beast::detail::base64::decode(out.data(), text.data(), text.size());
  out.resize(written);
  return out;
}

}  // namespace wm::test
