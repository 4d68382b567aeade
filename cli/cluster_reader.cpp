#include "cli/cluster_reader.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace wm::cli {

ClusterReader::Outcome ClusterReader::fetch(const Read& read) {
  Outcome out;
  for (const auto& version : read.versions)
    if (Result<kube::Resource> found = discovery_.find(read.group, version, read.kind)) {
      out.resource = *found;
      break;
    }
  if (out.resource) out.listed = kube::list_all(api_, out.resource->path(out.resource->namespaced ? namespace_ : ""));
  return out;
}

void ClusterReader::run() {
  std::vector<Read> reads = std::move(reads_);
  reads_.clear();
  std::vector<Outcome> outcomes(reads.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < reads.size();) outcomes[i] = fetch(reads[i]);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min<size_t>(4, reads.size()); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < reads.size(); ++i) {
    Outcome& o = outcomes[i];
    if (!o.resource) {
      if (reads[i].unserved) reads[i].unserved();
      continue;
    }
    if (!o.listed.ok()) {
      const std::string ns = o.resource->namespaced ? namespace_ : "";
      snapshot_.notes.push_back((o.listed.status == 403 ? "may not list " + o.resource->plural + "." +
                                                              o.resource->group + (ns.empty() ? "" : " in " + ns) + ": "
                                                        : std::string()) +
                                o.listed.error);
    }
    for (simdjson::dom::element item : o.listed.items) reads[i].each(*o.resource, item);
    if (reads[i].done) reads[i].done(*o.resource);
    for (auto& page : o.listed.pages) snapshot_.documents.push_back(std::move(page));
  }
}

}  // namespace wm::cli
