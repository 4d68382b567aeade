// Where the API server is and who we are to it: from a kubeconfig file (its current context) or from the pod
// we run in (service-account token, CA, KUBERNETES_SERVICE_HOST/PORT). A token file is re-read when it changes:
// the kubelet rotates projected tokens in place.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.h"

namespace wm::kube {

struct Config {
  std::string host, port;       // from the server URL (https only)
  std::string tls_server_name;  // SNI and certificate name check; the host unless the kubeconfig says otherwise
  std::string ca_pem;           // empty: the system's CAs
  bool insecure_skip_verify = false;
  std::string client_certificate_pem, client_key_pem;
  std::string token;           // a fixed bearer token
  std::string token_file;      // or a file holding it, re-read when it changes
  std::string namespace_name;  // the context's (or the pod's) namespace; "" when none is given
  std::string source;          // "kubeconfig FILE" or "in-cluster", for logs

  std::string server() const { return "https://" + host + ":" + port; }
};

// The current context of a kubeconfig; relative file paths are read from the kubeconfig's directory.
// Exec and auth-provider plugins are not supported (the error says so).
Result<Config> config_from_kubeconfig(const std::string& path);
// The same from the kubeconfig's text; `read_file` reads the files it names (tests and fuzzing give their own).
using FileReader = std::function<bool(const std::string& path, std::string& content)>;
Result<Config> config_from_kubeconfig_text(const std::string& text, const std::string& path,
                                           const FileReader& read_file);
// The pod's own configuration; `secrets` is where the service account is mounted.
Result<Config> config_in_cluster(const std::string& secrets = "/var/run/secrets/kubernetes.io/serviceaccount");
// Splits https://host[:port]; false for any other scheme.
bool parse_server_url(const std::string& url, std::string& host, std::string& port);

// The bearer token to send: the fixed one, or the token file's current content (re-read when its size or
// modification time changes). Thread-safe.
class TokenSource {
 public:
  explicit TokenSource(const Config& config) : token_(config.token), file_(config.token_file) {}
  std::string token();

 private:
  std::mutex mutex_;
  std::string token_, file_, signature_;
};

}  // namespace wm::kube
