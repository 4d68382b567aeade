#include "tests/bench/scale/workload_mix.h"

#include <array>
#include <random>

namespace wm::bench {

namespace {

// Pods per workload: 1 to 16, 5 on average (10,000 pods for 2,000 workloads).
constexpr std::array<int, 10> kPodCounts{1, 1, 2, 2, 4, 4, 4, 8, 8, 16};

std::string pod_spec(const std::string& container, const std::string& pool) {
  return R"({"restartPolicy":"Never","nodeSelector":{"workload-map.io/node-pool":")" + pool +
         R"("},"containers":[{"name":")" + container +
         R"(","image":"registry.example/train:1","resources":{"limits":{"nvidia.com/gpu":1}}}]})";
}

std::string batch_job_spec(int pods, const std::string& pool) {
  const std::string n = std::to_string(pods);
  return R"({"parallelism":)" + n + R"(,"completions":)" + n + R"(,"backoffLimit":0,"template":{"spec":)" +
         pod_spec("train", pool) + "}}";
}

// A leader job of one pod and a worker job of the rest, as JobSet's own examples split a training run.
Workload jobset(const std::string& name, int pods, const std::string& ns, const std::string& pool) {
  std::string jobs = R"({"name":"leader","replicas":1,"template":{"spec":)" + batch_job_spec(1, pool) + "}}";
  if (pods > 1)
    jobs += R"(,{"name":"workers","replicas":1,"template":{"spec":)" + batch_job_spec(pods - 1, pool) + "}}";
  return {"JobSet", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + ns + "/jobsets", name,
          R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":")" + name +
              R"("},"spec":{"replicatedJobs":[)" + jobs + "]}}",
          pods};
}

// A Master and pods - 1 Workers.
Workload pytorchjob(const std::string& name, int pods, const std::string& ns, const std::string& pool) {
  auto replica = [&](int replicas) {
    return R"({"replicas":)" + std::to_string(replicas) + R"(,"restartPolicy":"Never","template":{"spec":)" +
           pod_spec("pytorch", pool) + "}}";
  };
  std::string specs = R"("Master":)" + replica(1);
  if (pods > 1) specs += R"(,"Worker":)" + replica(pods - 1);
  return {"PyTorchJob", "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs", name,
          R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":")" + name +
              R"("},"spec":{"pytorchReplicaSpecs":{)" + specs + "}}}",
          pods};
}

Workload job(const std::string& name, int pods, const std::string& ns, const std::string& pool) {
  return {"Job", "/apis/batch/v1/namespaces/" + ns + "/jobs", name,
          R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + name + R"("},"spec":)" +
              batch_job_spec(pods, pool) + "}",
          pods};
}

}  // namespace

std::vector<Workload> workload_mix(int count, const std::string& ns, const std::string& pool, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<size_t> size(0, kPodCounts.size() - 1);
  std::uniform_int_distribution<int> kind(0, 9);
  std::vector<Workload> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int pods = kPodCounts[size(random)];
    const int k = kind(random);  // 6 in 10 JobSets, 3 PyTorchJobs, 1 Job
    const std::string name = "w" + std::to_string(i);
    out.push_back(k < 6   ? jobset(name, pods, ns, pool)
                  : k < 9 ? pytorchjob(name, pods, ns, pool)
                          : job(name, pods, ns, pool));
  }
  return out;
}

}  // namespace wm::bench
