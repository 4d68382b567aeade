#include "webhook/file_reload.h"

namespace wm::webhook {

void reload_changed_files(TlsContexts& tls, policy::StateStore& state, Metrics& metrics, const Logger& log) {
  if (auto tls_result = tls.reload_if_changed()) {
    if (tls_result->ok()) {
      log.log(LogLevel::Info, "certificate reloaded");
      metrics.set_certificate_expiry(tls.certificate_expiry());
    } else {
      log.log(LogLevel::Error, "certificate reload failed; the previous certificate stays in use",
              {{"error", tls_result->error()}});
    }
    metrics.reload("certificate", tls_result->ok());
  }
  for (const auto& r : state.reload_if_changed()) {
    if (r.ok()) {
      log.log(LogLevel::Info, r.what + " reloaded");
      metrics.set_definitions(state.current().catalog->size());
    } else {
      std::string all;
      for (const auto& e : r.problems) all += (all.empty() ? "" : "; ") + e.str();
      log.log(LogLevel::Error, r.what + " reload failed; the last good " + r.what + " stays live", {{"error", all}});
    }
    metrics.reload(r.what, r.ok());
  }
}

}  // namespace wm::webhook
