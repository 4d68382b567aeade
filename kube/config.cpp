#include "kube/config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <boost/beast/core/detail/base64.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wm::kube {

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

// Beast's decoder (the one admission.cpp encodes patches with) stops at the first byte outside the alphabet: what it
// leaves must be padding. Line breaks, which some tools put in long `-data` values, are dropped first.
bool base64_decode(const std::string& in, std::string& out) {
  std::string text;
  for (char c : in)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  out.resize((text.size() + 3) / 4 * 3);  // decoded_size() is n / 4 * 3, but an unpadded tail writes up to 3 more
  const auto [written, read] = boost::beast::detail::base64::decode(out.data(), text.data(), text.size());
  out.resize(written);
  return text.find_first_not_of('=', read) == std::string::npos && text.size() - read <= 2;
}

// The named entry of a kubeconfig list (clusters, users, contexts): its inner map.
YAML::Node named(const YAML::Node& list, const std::string& field, const std::string& name) {
  if (list.IsSequence())
    for (const auto& entry : list)
      if (entry["name"] && entry["name"].Scalar() == name) return entry[field];
  return YAML::Node(YAML::NodeType::Undefined);
}

// A PEM given inline (`<key>-data`, base64) or as a file (`<key>`, relative to the kubeconfig).
Result<void> pem(const YAML::Node& map, const std::string& key, const std::filesystem::path& base,
                 const FileReader& read_file, std::string& out) {
  if (YAML::Node data = map[key + "-data"]; data && data.IsScalar()) {
    if (!base64_decode(data.Scalar(), out)) return Error{key + "-data is not base64"};
    return {};
  }
  if (YAML::Node file = map[key]; file && file.IsScalar()) {
    std::filesystem::path p(file.Scalar());
    if (p.is_relative()) p = base / p;
    if (!read_file(p.string(), out)) return Error{key + ": cannot read " + p.string()};
  }
  return {};
}

}  // namespace

Result<Config> read_kubeconfig(const YAML::Node& root, const std::string& path, const FileReader& read_file);

bool parse_server_url(const std::string& url, std::string& host, std::string& port) {
  const std::string scheme = "https://";
  if (url.compare(0, scheme.size(), scheme) != 0) return false;
  std::string rest = url.substr(scheme.size());
  if (auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  if (rest.empty()) return false;
  if (rest.front() == '[') {  // [v6]:port
    auto close = rest.find(']');
    if (close == std::string::npos) return false;
    host = rest.substr(1, close - 1);
    port = close + 2 <= rest.size() && rest[close + 1] == ':' ? rest.substr(close + 2) : "443";
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    host = rest;
    port = "443";
  }
  return !host.empty() && !port.empty();
}

Result<Config> config_from_kubeconfig(const std::string& path) {
  std::string text;
  if (!read_file(path, text)) return Error{path + ": cannot read the kubeconfig"};
  return config_from_kubeconfig_text(text, path, read_file);
}

Result<Config> config_from_kubeconfig_text(const std::string& text, const std::string& path,
                                           const FileReader& read_file) {
  // Every field read_kubeconfig reads is checked for its type first: yaml-cpp throws on a conversion that fails.
  try {
    return read_kubeconfig(YAML::Load(text), path, read_file);
  } catch (const YAML::Exception& e) {
    return Error{path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
}

Result<Config> read_kubeconfig(const YAML::Node& root, const std::string& path, const FileReader& read_file) {
  const auto base = std::filesystem::path(path).parent_path();
  auto fail = [&](const std::string& why) { return Error{path + ": " + why}; };
  if (!root.IsMap() || !root["current-context"] || !root["current-context"].IsScalar())
    return fail("no current-context");
  const std::string context_name = root["current-context"].Scalar();
  YAML::Node context = named(root["contexts"], "context", context_name);
  if (!context || !context.IsMap()) return fail("no context named " + context_name);
  Config config;
  config.source = "kubeconfig " + path;
  if (context["namespace"] && context["namespace"].IsScalar()) config.namespace_name = context["namespace"].Scalar();
  const std::string cluster_name = context["cluster"] ? context["cluster"].Scalar() : "";
  YAML::Node cluster = named(root["clusters"], "cluster", cluster_name);
  if (!cluster || !cluster.IsMap()) return fail("context " + context_name + ": no cluster named " + cluster_name);
  if (!cluster["server"] || !parse_server_url(cluster["server"].Scalar(), config.host, config.port))
    return fail("cluster " + cluster_name + ": server must be an https:// URL");
  config.tls_server_name = cluster["tls-server-name"] ? cluster["tls-server-name"].Scalar() : config.host;
  config.insecure_skip_verify =
      cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<std::string>() == "true";
  if (auto ca = pem(cluster, "certificate-authority", base, read_file, config.ca_pem); !ca)
    return fail("cluster " + cluster_name + ": " + ca.error());
  if (YAML::Node user_name = context["user"]; user_name && user_name.IsScalar()) {
    YAML::Node user = named(root["users"], "user", user_name.Scalar());
    if (!user || !user.IsMap()) return fail("context " + context_name + ": no user named " + user_name.Scalar());
    if (user["exec"] || user["auth-provider"])
      return fail("user " + user_name.Scalar() +
                  ": exec and auth-provider plugins are not supported; use a token or a client certificate");
    auto certificate = pem(user, "client-certificate", base, read_file, config.client_certificate_pem);
    if (!certificate) return fail("user " + user_name.Scalar() + ": " + certificate.error());
    if (auto key = pem(user, "client-key", base, read_file, config.client_key_pem); !key)
      return fail("user " + user_name.Scalar() + ": " + key.error());
    if (config.client_certificate_pem.empty() != config.client_key_pem.empty())
      return fail("user " + user_name.Scalar() + ": client-certificate and client-key go together");
    if (user["token"]) config.token = user["token"].Scalar();
    if (user["tokenFile"]) {
      std::filesystem::path p(user["tokenFile"].Scalar());
      config.token_file = (p.is_relative() ? base / p : p).string();
    }
  }
  return config;
}

Result<Config> config_in_cluster(const std::string& secrets) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    return Error{"not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set"};
  Config config;
  config.source = "in-cluster";
  config.host = host;
  config.port = port;
  config.tls_server_name = config.host;
  config.token_file = secrets + "/token";
  std::string token;
  if (!read_file(config.token_file, token))
    return Error{config.token_file + ": cannot read the service account token (is automountServiceAccountToken off?)"};
  if (!read_file(secrets + "/ca.crt", config.ca_pem)) return Error{secrets + "/ca.crt: cannot read the cluster CA"};
  std::string ns;
  if (read_file(secrets + "/namespace", ns)) config.namespace_name = trimmed(ns);
  return config;
}

std::string TokenSource::token() {
  if (file_.empty()) return token_;
  std::lock_guard lock(mutex_);
  struct stat st {};
  std::string signature;
  if (stat(file_.c_str(), &st) == 0)
    signature = std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ino);
  if (signature != signature_) {
    std::string text;
    if (read_file(file_, text)) {
      token_ = trimmed(text);
      signature_ = signature;
    }
  }
  return token_;
}

}  // namespace wm::kube
