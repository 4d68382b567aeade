// Mapper benchmark: catalog load time, and per-object time to parse the JSON, build the view and
// produce the JSON Patch (the admission hot path), as medians over many iterations on one core.
//   mapper_bench [ITERATIONS]      (default 20000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mapper/catalog/catalog.h"
#include "mapper/catalog/documents.h"
#include "mapper/view/pod_edits.h"
#include "mapper/view/workload_view.h"

using namespace wm;
using Clock = std::chrono::steady_clock;

namespace {

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

std::string first_json(const std::string& path) {
  yaml::Diagnostics errors;
  auto docs = catalog::read_document_file(path, errors);
  if (!errors.empty() || docs.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return docs.front().json;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;

  std::vector<double> loads;
  catalog::Catalog catalog;
  for (int i = 0; i < 20; ++i) {
    yaml::Diagnostics errors;
    auto t0 = Clock::now();
    catalog = catalog::Catalog::embedded(errors);
    loads.push_back(micros(Clock::now() - t0) / 1000.0);
    if (!errors.empty()) {
      std::fprintf(stderr, "catalog: %s\n", errors.front().str().c_str());
      return 1;
    }
  }
  std::printf("catalog load (embedded, %zu definitions): median %.2f ms over %zu loads\n\n", catalog.size(),
              median(loads), loads.size());

  const std::string corpus = WM_CORPUS_DIR;
  struct Case {
    const char* label;
    std::string path;
  } cases[] = {
      {"JobSet (tests/bench/fixtures/jobset-10k.yaml)",
       std::string(WM_SOURCE_DIR) + "/tests/bench/fixtures/jobset-10k.yaml"},
      {"PyTorchJob (corpus pytorchjob/pytorch_job_mnist_nccl.yaml)",
       corpus + "/pytorchjob/pytorch_job_mnist_nccl.yaml"},
      {"RayCluster (corpus raycluster/ray-cluster.complete.yaml)", corpus + "/raycluster/ray-cluster.complete.yaml"},
  };
  const view::PodEdits edits{"kai-scheduler",
                             std::nullopt,
                             {{"kai.scheduler/queue", "team-a"}, {"scheduling.x-k8s.io/pod-group", "train"}},
                             {{"workload-map.io/gang-size", "3"}}};
  const view::RootEdits root{{{"kai.scheduler/queue", "team-a"}}, {{"workload-map.io/gpus", "12"}}};

  std::printf("%-60s %7s %9s %9s %9s %9s %9s\n", "object", "bytes", "parse", "view", "patch", "total", "p99");
  simdjson::dom::parser parser;
  for (const auto& c : cases) {
    const std::string json = first_json(c.path);
    const simdjson::padded_string padded(json);
    std::vector<double> parse_t, view_t, patch_t, total_t;
    size_t patch_bytes = 0;
    for (int i = 0; i < iterations; ++i) {
      auto t0 = Clock::now();
      simdjson::dom::element root_element;
      if (parser.parse(padded).get(root_element)) return 1;
      auto t1 = Clock::now();
      json::ObjectDocument doc(root_element);
      std::string_view api, kind;
      if (root_element["apiVersion"].get(api)) return 1;
      if (root_element["kind"].get(kind)) return 1;
      auto match = catalog.find(api, kind);
      view::WorkloadView view = view::build_view(*match.definition, doc);
      auto t2 = Clock::now();
      std::vector<std::string> warnings;
      std::string patch = view::make_patch(view, doc, edits, root, warnings);
      auto t3 = Clock::now();
      patch_bytes = patch.size();
      parse_t.push_back(micros(t1 - t0));
      view_t.push_back(micros(t2 - t1));
      patch_t.push_back(micros(t3 - t2));
      total_t.push_back(micros(t3 - t0));
    }
    std::printf("%-60s %7zu %7.2fus %7.2fus %7.2fus %7.2fus %7.2fus   (patch %zu bytes)\n", c.label, json.size(),
                median(parse_t), median(view_t), median(patch_t), median(total_t), percentile(total_t, 0.99),
                patch_bytes);
  }
  std::printf("\nmedians over %d iterations each, one thread\n", iterations);
  return 0;
}
