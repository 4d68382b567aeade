// The benchmarks' fixed mix of AdmissionReviews (JobSet, PyTorchJob, RayCluster, LeaderWorkerSet,
// InferenceService, Deployment), made from the corpus and the bench fixtures.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mapper/catalog/documents.h"

namespace wm::bench {

inline std::string admission_review_for(const std::string& file) {
  yaml::Diagnostics errors;
  auto docs = catalog::read_document_file(file, errors);
  if (!errors.empty() || docs.empty()) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    std::exit(1);
  }
  // The workload document of the file: the first one that is not a ConfigMap, NIMCache or Secret.
  std::string object = docs.front().json;
  for (const auto& d : docs)
    if (d.json.find("\"kind\":\"ConfigMap\"") == std::string::npos &&
        d.json.find("\"kind\":\"NIMCache\"") == std::string::npos &&
        d.json.find("\"kind\":\"Secret\"") == std::string::npos) {
      object = d.json;
      break;
    }
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"4c1e9a4b-1f2e-3d4c-5b6a-0d9f5d4e7c59","namespace":"team-a","operation":"CREATE","userInfo":{"username":"bench"},"object":)" +
         object + "}}";
}

struct MixEntry {
  std::string label;
  std::string review;  // the AdmissionReview body
};

inline std::vector<MixEntry> admission_mix(const std::string& source_dir, const std::string& corpus_dir) {
  const std::pair<const char*, std::string> files[] = {
      {"JobSet", source_dir + "/tests/bench/fixtures/jobset-10k.yaml"},
      {"PyTorchJob", corpus_dir + "/pytorchjob/pytorch_job_mnist_nccl.yaml"},
      {"RayCluster", corpus_dir + "/raycluster/ray-cluster.complete.yaml"},
      {"LeaderWorkerSet", corpus_dir + "/leaderworkerset/sample-lws.yaml"},
      {"InferenceService", corpus_dir + "/inferenceservice/transformer-collocation.yaml"},
      {"Deployment", source_dir + "/tests/bench/fixtures/deployment.yaml"},
  };
  std::vector<MixEntry> mix;
  for (const auto& [label, file] : files) mix.push_back({label, admission_review_for(file)});
  return mix;
}

}  // namespace wm::bench
