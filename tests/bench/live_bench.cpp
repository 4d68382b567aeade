// `workload-map get` at scale, without a control plane: N JobSets (the corpus's paralleljobs: 5 pods each), their
// Jobs, pods and KAI PodGroups, held by an in-memory API server (tests/support/fake_api.h), read by the command line's
// own reader (cli/cluster_snapshot.cpp: discovery, paged lists, the catalog and policy), made workloads
// (live/inventory.h) and printed as `get` prints them. Prints the time of each step and the RSS; the API server's
// own time (a real one's list latency) is not in it.
//   live_bench [--workloads N] [--runs R]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/cluster_snapshot.h"
#include "live/inventory.h"
#include "live/live_json.h"
#include "tests/bench/process_usage.h"
#include "tests/support/fake_api.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string owner(const std::string& api_version, const std::string& kind, const std::string& name,
                  const std::string& uid) {
  return R"({"apiVersion":")" + api_version + R"(","kind":")" + kind + R"(","name":")" + name + R"(","uid":")" + uid +
         R"(","controller":true})";
}

// The corpus JobSet (jobset/paralleljobs.yaml) as JSON: workers (4 pods) and driver (1), each pod given 4 GPUs.
const char* const kJobSetSpec =
    R"("spec":{"replicatedJobs":[{"name":"workers","template":{"spec":{"parallelism":4,"completions":4,)"
    R"("backoffLimit":0,"template":{"spec":{"containers":[{"name":"sleep","image":"busybox","command":["sleep"],)"
    R"("args":["100s"],"resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}}},{"name":"driver","template":{"spec":{)"
    R"("parallelism":1,"completions":1,"backoffLimit":0,"template":{"spec":{"containers":[{"name":"sleep",)"
    R"("image":"busybox","command":["sleep"],"args":["100s"],"resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}}}]})";

struct Objects {
  std::map<std::string, std::string> jobsets, jobs, pods, pod_groups;
};

Objects make_objects(int workloads) {
  Objects o;
  for (int i = 0; i < workloads; ++i) {
    const std::string n = "train-" + std::to_string(i), uid = "js-" + std::to_string(i);
    o.jobsets[n] = R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":")" + n +
                   R"(","namespace":"bench","uid":")" + uid + R"(","labels":{"kai.scheduler/queue":"team-a"}},)" +
                   kJobSetSpec + R"(,"status":{"replicatedJobsStatus":[{"name":"workers","active":4,"ready":4}]}})";
    for (const auto& [job, pods] : std::vector<std::pair<std::string, int>>{{"workers", 4}, {"driver", 1}}) {
      const std::string job_name = n + "-" + job + "-0", job_uid = uid + "-" + job;
      o.jobs[job_name] = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + job_name +
                         R"(","namespace":"bench","uid":")" + job_uid + R"(","ownerReferences":[)" +
                         owner("jobset.x-k8s.io/v1alpha2", "JobSet", n, uid) + "]}}";
      for (int p = 0; p < pods; ++p) {
        const std::string pod = job_name + "-" + std::to_string(p);
        o.pods[pod] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
                      R"(","namespace":"bench","uid":"pod-)" + pod + R"(","ownerReferences":[)" +
                      owner("batch/v1", "Job", job_name, job_uid) +
                      R"(]},"spec":{"schedulerName":"kai-scheduler","nodeName":"node-)" + std::to_string(p) +
                      R"(","containers":[{"name":"sleep","image":"busybox","resources":{"limits":{"nvidia.com/gpu":)"
                      R"("4"}}}]},"status":{"phase":"Running"}})";
      }
    }
    o.pod_groups["pg-" + n] =
        R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"pg-)" + n +
        R"(","namespace":"bench","uid":"pg-)" + uid + R"(","ownerReferences":[)" +
        owner("jobset.x-k8s.io/v1alpha2", "JobSet", n, uid) + R"(]},"spec":{"minMember":5}})";
  }
  return o;
}

std::string resources(const char* group_version, std::vector<std::pair<const char*, const char*>> kinds) {
  std::string out = R"({"kind":"APIResourceList","groupVersion":")" + std::string(group_version) + R"(","resources":[)";
  for (size_t i = 0; i < kinds.size(); ++i)
    out += std::string(i ? "," : "") + R"({"name":")" + kinds[i].first + R"(","kind":")" + kinds[i].second +
           R"(","namespaced":true,"verbs":["list"]})";
  return out + "]}";
}

void serve(wm::test::FakeApi& api, const Objects& o) {
  api.answer("GET", "/api/v1", 200, resources("v1", {{"pods", "Pod"}, {"events", "Event"}}));
  api.answer("GET", "/apis/jobset.x-k8s.io/v1alpha2", 200,
             resources("jobset.x-k8s.io/v1alpha2", {{"jobsets", "JobSet"}}));
  api.answer("GET", "/apis/batch/v1", 200, resources("batch/v1", {{"jobs", "Job"}}));
  api.answer("GET", "/apis/scheduling.run.ai/v2alpha2", 200,
             resources("scheduling.run.ai/v2alpha2", {{"podgroups", "PodGroup"}}));
  api.hold("/apis/jobset.x-k8s.io/v1alpha2/namespaces/bench/jobsets", o.jobsets);
  api.hold("/apis/batch/v1/namespaces/bench/jobs", o.jobs);
  api.hold("/api/v1/namespaces/bench/pods", o.pods);
  api.hold("/apis/scheduling.run.ai/v2alpha2/namespaces/bench/podgroups", o.pod_groups);
}

}  // namespace

int main(int argc, char** argv) {
  int workloads = 1000, runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workloads")) workloads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
  }
  wm::test::FakeApi api;
  serve(api, make_objects(workloads));
  wm::cli::ClusterOptions options;
  options.namespace_name = "bench";
  std::printf("get -n bench over %d JobSets (%d Jobs, %d pods, %d PodGroups), in-memory API server\n", workloads,
              2 * workloads, 5 * workloads, workloads);
  for (int run = 0; run < runs; ++run) {
    const auto start = Clock::now();
    auto read = wm::cli::read_cluster(api, options, {}, "");
    if (!read) return 1;
    const double read_ms = ms_since(start);
    const auto built = Clock::now();
    auto rows = wm::live::live_workloads(read->state, read->snapshot);
    const double inventory_ms = ms_since(built);
    const auto printed = Clock::now();
    const std::string json = wm::live::workloads_json(rows, read->snapshot.notes);
    const double json_ms = ms_since(printed);
    long long pods = 0;
    for (const auto& w : rows) pods += w.pods.scheduled;
    std::printf(
        "run %d: %zu workloads, %lld pods attributed; read %.0f ms (catalog, policy, lists), workloads %.0f ms, "
        "json %.0f ms (%zu KiB); total %.0f ms; RSS %.0f MiB\n",
        run + 1, rows.size(), pods, read_ms, inventory_ms, json_ms, json.size() / 1024, ms_since(start),
        wm::bench::process_usage(getpid()).rss_mib);
  }
  return 0;
}
