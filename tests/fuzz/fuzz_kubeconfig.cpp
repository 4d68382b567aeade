// A kubeconfig from outside (kube/config): any text gives a configuration or an error naming the file, never a
// crash or an exception. The files it names are read from a fake file system: nothing on disk is touched.
#include <cstdint>
#include <string>

#include "kube/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto fake_files = [](const std::string& path, std::string& content) {
    content = "PEM of " + path;
    return path.find("missing") == std::string::npos;
  };
  auto config = wm::kube::config_from_kubeconfig_text(text, "/fuzz/kubeconfig", fake_files);
  if (!config && config.error().rfind("/fuzz/kubeconfig", 0) != 0) __builtin_trap();
  if (config && (config->host.empty() || config->port.empty())) __builtin_trap();
  return 0;
}
