// An API server that answers from manifest files, for `get -f` and `describe -f` (the offline view): the objects of
// the files (YAML or JSON, several documents, `kind: List` expanded: what `kubectl get -o yaml` saves) served by
// discovery, list and get as the cluster would serve them, so that the offline view is read by the very code that reads
// the live one (cli/cluster_snapshot.cpp). A kind is namespaced when any of its objects names a namespace; an object
// of a namespaced kind without one is in `default`, as `kubectl apply` puts it. No writes, no watches.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kube/api.h"

namespace wm::cli {

class FileApi : public kube::Api {
 public:
  // The objects of `files`; nothing when one cannot be read (each problem said on stderr, at its file and line).
  static std::unique_ptr<FileApi> read(const std::vector<std::string>& files);

 protected:
  kube::Response send(std::string_view method, const std::string& target, const std::string& body,
                      std::string_view content_type, std::chrono::milliseconds timeout) override;
  kube::Response open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                             std::chrono::milliseconds idle_timeout, const std::atomic<bool>* stop,
                             const std::function<void()>& on_open) override;

 private:
  struct Object {
    std::string namespace_name, name, json;
  };
  struct Kind {
    std::string kind;
    bool namespaced = false;
    std::vector<Object> objects;
  };
  void add(std::string_view json_text);
  std::string discovery(const std::string& group_version) const;
  // group/version -> plural -> the kind's objects
  std::map<std::string, std::map<std::string, Kind>> kinds_;
};

}  // namespace wm::cli
