// The server's TLS configuration: certificate and key from files (TLS 1.2 at least), optional client
// certificate verification against a CA. Reloads rotated files: connections in flight keep the
// context they started with; new ones get the new one.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/file_watch.h"
#include "base/result.h"

namespace wm::webhook {

struct TlsFiles {
  std::string certificate, key, client_ca;  // client_ca empty: no client certificates asked for
};

class TlsContexts {
 public:
  explicit TlsContexts(TlsFiles files);
  // Builds a context from the files; on failure keeps the current one and says why.
  Result<void> load();
  // Reloads when a file changed; nothing (no change) or the result of the reload.
  std::optional<Result<void>> reload_if_changed();
  std::shared_ptr<boost::asio::ssl::context> current() const;
  double certificate_expiry() const { return expiry_; }  // unix seconds

 private:
  TlsFiles files_;
  FileWatch watch_;
  mutable std::mutex mutex_;
  std::shared_ptr<boost::asio::ssl::context> current_;
  double expiry_ = 0;
};

// Writes a self-signed certificate for localhost and 127.0.0.1 (EC P-256, valid a year) into `dir`
// as tls.crt and tls.key.
Result<void> make_self_signed(const std::string& dir);

}  // namespace wm::webhook
