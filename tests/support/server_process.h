// The real `workload-map serve` binary, started for a test on a free loopback port, and a small
// HTTPS client (Boost.Beast, verifying the server against a CA) to talk to it.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm::test {

// A CA and a serving certificate for 127.0.0.1/localhost, made once per test run by certs/make-certs.sh.
struct TestCertificates {
  std::string dir, ca, certificate, key;
};
const TestCertificates& test_certificates();

class ServerProcess {
 public:
  // `args` are added to: serve --listen 127.0.0.1:0 --cert ... --key ...
  explicit ServerProcess(std::vector<std::string> args = {}, bool default_tls = true);
  ~ServerProcess();
  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  // SIGTERM, then the exit status (or -1 if it had to be killed after `seconds`); an exited one's status.
  int stop(int seconds = 30);
  // Without a signal: the exit status once it exits, or -2 if it still runs after `seconds`.
  int wait_exit(int seconds);
  bool running();
  std::string log() const;                               // what it wrote on stderr
  const std::string& banner() const { return banner_; }  // what it wrote on stdout when ready

 private:
  pid_t pid_ = -1;
  int exit_status_ = -1;  // 128 + the signal when a signal ended it
  uint16_t port_ = 0;
  std::string log_file_, banner_;
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpsClient {
 public:
  HttpsClient(uint16_t port, const std::string& ca_file = test_certificates().ca);
  ~HttpsClient();
  HttpResponse post(const std::string& target, const std::string& body);
  HttpResponse get(const std::string& target);

 private:
  HttpResponse request(bool post, const std::string& target, const std::string& body);
  boost::asio::io_context ioc_;
  boost::asio::ssl::context ctx_;
  std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> stream_;
};

// An AdmissionReview for `object_json` (what the API server would send); an UPDATE also carries `old_object_json`.
std::string admission_review(const std::string& object_json, const std::string& namespace_name,
                             const std::string& operation = "CREATE", const std::string& uid = "req-1",
                             const std::string& old_object_json = "");
// The built-in policy's scheduler profiles followed by `rules` (YAML text of a rules: list).
std::string policy_with_rules(const std::string& rules);
// The built-in policy with one rule for every namespace and kind: the kai profile, queue team-a, and at most `gpus`
// nvidia.com/gpu per workload.
std::string gpu_limit_policy(int gpus);
std::string base64_decode(const std::string& text);

}  // namespace wm::test
