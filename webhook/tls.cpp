#include "webhook/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <ctime>
#include <memory>

namespace wm::webhook {

namespace ssl = boost::asio::ssl;

namespace {

std::string openssl_error() {
  unsigned long code = ERR_get_error();
  if (!code) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

double not_after(const std::string& certificate_file) {
  FILE* f = std::fopen(certificate_file.c_str(), "r");
  if (!f) return 0;
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!cert) return 0;
  std::tm tm{};
  double out = ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) ? static_cast<double>(timegm(&tm)) : 0;
  X509_free(cert);
  return out;
}

}  // namespace

TlsContexts::TlsContexts(TlsFiles files)
    : files_(files), watch_({files.certificate, files.key, files.client_ca.empty() ? files.key : files.client_ca}) {}

Result<void> TlsContexts::load() {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(native, files_.certificate.c_str()) != 1)
    return Error{"cannot use certificate " + files_.certificate + ": " + openssl_error()};
  if (SSL_CTX_use_PrivateKey_file(native, files_.key.c_str(), SSL_FILETYPE_PEM) != 1)
    return Error{"cannot use key " + files_.key + ": " + openssl_error()};
  if (SSL_CTX_check_private_key(native) != 1)
    return Error{"the key " + files_.key + " does not match the certificate " + files_.certificate};
  if (!files_.client_ca.empty()) {
    if (SSL_CTX_load_verify_locations(native, files_.client_ca.c_str(), nullptr) != 1)
      return Error{"cannot use client CA " + files_.client_ca + ": " + openssl_error()};
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  double expiry = not_after(files_.certificate);
  std::lock_guard lock(mutex_);
  current_ = std::move(ctx);
  expiry_ = expiry;
  return {};
}

std::optional<Result<void>> TlsContexts::reload_if_changed() {
  if (!watch_.changed()) return std::nullopt;
  return load();
}

std::shared_ptr<ssl::context> TlsContexts::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

Result<void> make_self_signed(const std::string& dir) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  bool ok = key && cert;
  if (ok) {
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), static_cast<long>(std::time(nullptr)));
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                               0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
    for (auto [nid, value] :
         {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"},
          std::pair{NID_basic_constraints, "critical,CA:TRUE"}, std::pair{NID_ext_key_usage, "serverAuth"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
      ok = ok && ext && X509_add_ext(cert, ext, -1);
      X509_EXTENSION_free(ext);
    }
    ok = ok && X509_sign(cert, key, EVP_sha256());
  }
  if (ok) {
    FILE* c = std::fopen((dir + "/tls.crt").c_str(), "w");
    FILE* k = std::fopen((dir + "/tls.key").c_str(), "w");
    ok = c && k && PEM_write_X509(c, cert) && PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
    if (c) std::fclose(c);
    if (k) std::fclose(k);
  }
  std::string why = ok ? "" : openssl_error();
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) return Error{"cannot make a self-signed certificate: " + why};
  return {};
}

}  // namespace wm::webhook
