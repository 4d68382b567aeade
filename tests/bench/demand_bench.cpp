// The workload metrics at scale (controllers/workload_demand.h), without a control plane: N JobSets (the corpus's
// paralleljobs: a workers Job of 4 pods and a driver Job of 1, 4 GPUs each) in 20 namespaces, their Jobs, their pods
// (as large as a real API server's, managedFields and container statuses included) and KAI PodGroups, served by an API
// server in this process: discovery, paged lists made as they are read, and watches fed by the benchmark. The
// controller runs as `serve --workload-metrics` runs it (its watch and publish threads). Prints the time until every
// workload is counted, the RSS that holding them costs, and the time from a phase change (a gang's 5 pods bound and
// running, its PodGroup no longer unschedulable) to the gauge that says so: one workload at a time, then a burst.
//   demand_bench [--workloads N] [--changes C] [--burst B]
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "controllers/cluster_context.h"
#include "controllers/workload_demand.h"
#include "kube/discovery.h"
#include "policy/state_store.h"
#include "tests/bench/process_usage.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr int kNamespaces = 20;
constexpr int kPage = 500;

std::string ns_of(int i) { return "team-" + std::to_string(i % kNamespaces); }

// A uid as the API server makes them (36 characters, too long for a string's inline buffer): of workload i's object
// of `kind` (0 JobSet, 1 workers Job, 2 driver Job, 3 PodGroup, 10 + p its pod p).
std::string uid(int kind, int i) {
  char text[40];
  std::snprintf(text, sizeof text, "%08x-5e1d-4c2a-9f3b-%012x", 0x1000 + kind, i);
  return text;
}

std::string owner(const std::string& api_version, const std::string& kind, const std::string& name,
                  const std::string& uid) {
  return R"({"apiVersion":")" + api_version + R"(","kind":")" + kind + R"(","name":")" + name + R"(","uid":")" + uid +
         R"(","controller":true,"blockOwnerDeletion":true})";
}

const char* const kJobSetSpec =
    R"("spec":{"replicatedJobs":[{"name":"workers","replicas":1,"template":{"spec":{"parallelism":4,)"
    R"("completions":4,"backoffLimit":0,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"train",)"
    R"("image":"registry.example/train:1","command":["torchrun"],"args":["train.py"],)"
    R"("resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}}},{"name":"driver","replicas":1,"template":{"spec":{)"
    R"("parallelism":1,"completions":1,"backoffLimit":0,"template":{"spec":{"restartPolicy":"Never","containers":[)"
    R"({"name":"train","image":"registry.example/train:1","resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}}}]})";

std::string jobset(int i) {
  const std::string n = "train-" + std::to_string(i);
  return R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":")" + n + R"(","namespace":")" +
         ns_of(i) + R"(","uid":")" + uid(0, i) +
         R"(","resourceVersion":"1","labels":{"kai.scheduler/queue":"team-a"},"managedFields":[{"manager":"kubectl",)"
         R"("operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicatedJobs":{}}}}]},)" +
         kJobSetSpec +
         R"(,"status":{"replicatedJobsStatus":[{"name":"workers","active":1},{"name":"driver","active":1}]}})";
}

std::string job(int i, const char* which) {
  const std::string n = "train-" + std::to_string(i);
  return R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + n + "-" + which + R"(-0","namespace":")" +
         ns_of(i) + R"(","uid":")" + uid(which[0] == 'w' ? 1 : 2, i) + R"(","ownerReferences":[)" +
         owner("jobset.x-k8s.io/v1alpha2", "JobSet", n, uid(0, i)) +
         R"(]},"spec":{"parallelism":4,"template":{"spec":{"containers":[{"name":"train","image":"registry.example/)"
         R"(train:1","resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}},"status":{"active":4}})";
}

// A pod as an API server sends it: labels, managedFields, a full spec and container statuses (about 4 KB).
std::string pod(int i, int p, bool running) {
  const std::string n = "train-" + std::to_string(i), which = p < 4 ? "workers" : "driver";
  const std::string job_name = n + "-" + which + "-0", name = job_name + "-" + std::to_string(p);
  const std::string sched =
      running ? R"({"type":"PodScheduled","status":"True","lastTransitionTime":"2026-12-07T10:00:00Z"})"
              : R"({"type":"PodScheduled","status":"False","reason":"Unschedulable",)"
                R"("message":"0/64 nodes are available: 64 Insufficient nvidia.com/gpu."})";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns_of(i) +
         R"(","uid":")" + uid(10 + p, i) +
         R"(","resourceVersion":"2","labels":{"batch.kubernetes.io/controller-uid":")" + uid(p < 4 ? 1 : 2, i) +
         R"(","batch.kubernetes.io/job-name":")" + job_name + R"(","jobset.sigs.k8s.io/jobset-name":")" + n +
         R"(","jobset.sigs.k8s.io/replicatedjob-name":")" + which +
         R"(","kai.scheduler/queue":"team-a","runai/pod-group":"pg-)" + n +
         R"("},"annotations":{"jobset.sigs.k8s.io/global-replicas":"2","pod-group-name":"pg-)" + n +
         R"("},"ownerReferences":[)" + owner("batch/v1", "Job", job_name, uid(p < 4 ? 1 : 2, i)) +
         R"(],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1",)"
         R"("fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:batch.kubernetes.io/job-name":{},)"
         R"("f:jobset.sigs.k8s.io/jobset-name":{}},"f:ownerReferences":{}},"f:spec":{"f:containers":{"k:{\"name\":)"
         R"(\"train\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{"f:limits":{"f:nvidia.com/gpu":{}}}}}}}},)"
         R"({"manager":"kubelet","operation":"Update","subresource":"status","fieldsType":"FieldsV1","fieldsV1":{)"
         R"("f:status":{"f:conditions":{},"f:containerStatuses":{},"f:phase":{}}}}]},"spec":{"schedulerName":)"
         R"("kai-scheduler","restartPolicy":"Never","serviceAccountName":"default","terminationGracePeriodSeconds":30,)" +
         (running ? R"("nodeName":"gpu-node-)" + std::to_string(i % 64) + R"(",)" : std::string()) +
         R"("containers":[{"name":"train","image":"registry.example/train:1","command":["torchrun"],"args":[)"
         R"("--nnodes=5","train.py"],"env":[{"name":"JOBSET_NAME","value":")" +
         n + R"("},{"name":"MASTER_ADDR","value":")" + n + R"(-driver-0-0.)" + n +
         R"("},{"name":"NCCL_DEBUG","value":"INFO"}],"resources":{"limits":{"nvidia.com/gpu":"4"},"requests":{)"
         R"("nvidia.com/gpu":"4"}},"volumeMounts":[{"name":"kube-api-access","mountPath":"/var/run/secrets/)"
         R"(kubernetes.io/serviceaccount","readOnly":true}],"terminationMessagePath":"/dev/termination-log",)"
         R"("imagePullPolicy":"IfNotPresent"}],"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":)"
         R"("Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"nvidia.com/gpu","operator":"Exists",)"
         R"("effect":"NoSchedule"}],"volumes":[{"name":"kube-api-access","projected":{"defaultMode":420,"sources":[)"
         R"({"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt",)"
         R"("items":[{"key":"ca.crt","path":"ca.crt"}]}}]}}]},"status":{"phase":")" +
         (running ? "Running" : "Pending") + R"(","qosClass":"BestEffort","conditions":[)" + sched +
         (running ? R"(,{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"train","ready":true,)"
                    R"("restartCount":0,"image":"registry.example/train:1","imageID":"registry.example/train@sha256:)"
                    R"(0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","started":true,"state":{)"
                    R"("running":{"startedAt":"2026-12-07T10:00:05Z"}}}]}})"
                  : "]}}");
}

std::string pod_group(int i, bool waiting) {
  const std::string n = "train-" + std::to_string(i);
  return R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"pg-)" + n +
         R"(","namespace":")" + ns_of(i) + R"(","uid":")" + uid(3, i) + R"(","ownerReferences":[)" +
         owner("jobset.x-k8s.io/v1alpha2", "JobSet", n, uid(0, i)) +
         R"(]},"spec":{"minMember":5,"queue":"team-a"},"status":{)" +
         (waiting ? R"("schedulingConditions":[{"type":"UnschedulableOnNodePool","nodePool":"default","reason":)"
                    R"("Unschedulable","status":"True","message":"Resources were not found for pod group"}])"
                  : "") +
         "}}";
}

struct Collection {
  std::string list_path;
  int per_workload;
  std::function<std::string(int i, int k)> item;  // the k-th object of workload i
};

// An API server in memory: discovery for the four kinds, every other group 404; lists made page by page as read;
// watches that deliver what the benchmark pushes.
class BenchApi : public wm::kube::Api {
 public:
  explicit BenchApi(int workloads) : workloads_(workloads) {
    collections_["/apis/jobset.x-k8s.io/v1alpha2/jobsets"] = {"", 1, [](int i, int) { return jobset(i); }};
    collections_["/apis/batch/v1/jobs"] = {"", 2, [](int i, int k) { return job(i, k ? "driver" : "workers"); }};
    collections_["/api/v1/pods"] = {"", 5, [](int i, int k) { return pod(i, k, false); }};
    collections_["/apis/scheduling.run.ai/v2alpha2/podgroups"] = {"", 1, [](int i, int) { return pod_group(i, true); }};
  }
  void push(const std::string& collection, const std::string& object) {
    std::lock_guard lock(mutex_);
    events_[collection].push_back(R"({"type":"MODIFIED","object":)" + object + "}\n");
    pushed_.notify_all();
  }

 protected:
  wm::kube::Response send(std::string_view method, const std::string& target, const std::string&, std::string_view,
                          std::chrono::milliseconds) override {
    static const std::map<std::string, std::string> discovery = {
        {"/api/v1", resources("v1", "pods", "Pod")},
        {"/apis/jobset.x-k8s.io/v1alpha2", resources("jobset.x-k8s.io/v1alpha2", "jobsets", "JobSet")},
        {"/apis/batch/v1", resources("batch/v1", "jobs", "Job")},
        {"/apis/scheduling.run.ai/v2alpha2", resources("scheduling.run.ai/v2alpha2", "podgroups", "PodGroup")}};
    if (method != "GET") return {405, "{}", {}};
    if (auto d = discovery.find(target); d != discovery.end()) return {200, d->second, {}};
    const std::string path = target.substr(0, target.find('?'));
    auto c = collections_.find(path);
    if (c == collections_.end()) return {404, R"({"kind":"Status","code":404})", {}};
    int start = 0;
    if (size_t at = target.find("continue="); at != std::string::npos) start = std::atoi(target.c_str() + at + 9);
    const int total = workloads_ * c->second.per_workload, end = std::min(total, start + kPage);
    std::string body = R"({"kind":"List","metadata":{"resourceVersion":"1")" +
                       (end < total ? R"(,"continue":")" + std::to_string(end) + "\"" : std::string()) +
                       R"(},"items":[)";
    for (int n = start; n < end; ++n)
      body += (n > start ? "," : "") + c->second.item(n / c->second.per_workload, n % c->second.per_workload);
    return {200, body + "]}", {}};
  }
  wm::kube::Response open_stream(const std::string& target, const std::function<bool(std::string_view)>& on_data,
                                 std::chrono::milliseconds, const std::atomic<bool>* stop,
                                 const std::function<void()>& on_open) override {
    const std::string path = target.substr(0, target.find('?'));
    if (on_open) on_open();
    while (!stop->load()) {
      std::deque<std::string> lines;
      {
        std::unique_lock lock(mutex_);
        pushed_.wait_for(lock, std::chrono::milliseconds(50), [&] { return !events_[path].empty(); });
        lines.swap(events_[path]);
      }
      for (const auto& line : lines)
        if (!on_data(line)) return {200, "", {}};
    }
    return {0, "", "stopped"};
  }

 private:
  static std::string resources(const char* group_version, const char* plural, const char* kind) {
    return R"({"kind":"APIResourceList","groupVersion":")" + std::string(group_version) +
           R"(","resources":[{"name":")" + plural + R"(","kind":")" + kind +
           R"(","namespaced":true,"verbs":["list","watch"]}]})";
  }
  int workloads_;
  std::map<std::string, Collection> collections_;
  std::mutex mutex_;
  std::condition_variable pushed_;
  std::map<std::string, std::deque<std::string>> events_;
};

// The value of one series of `text` (0 when absent), and the sum of a family's series whose labels contain `with`.
double family_sum(const std::string& text, const std::string& family, const std::string& with) {
  double sum = 0;
  for (size_t at = text.find("\n" + family); at != std::string::npos; at = text.find("\n" + family, at + 1)) {
    if (text[at + 1 + family.size()] != '{' && text[at + 1 + family.size()] != ' ') continue;
    const size_t end = text.find('\n', at + 1), space = text.rfind(' ', end);
    if (text.substr(at, space - at).find(with) != std::string::npos) sum += std::stod(text.substr(space + 1));
  }
  return sum;
}

void make_running(BenchApi& api, int i) {
  for (int p = 0; p < 5; ++p) api.push("/api/v1/pods", pod(i, p, true));
  api.push("/apis/scheduling.run.ai/v2alpha2/podgroups", pod_group(i, false));
}

// Waits until `running` workloads are counted Running; the time it took, or -1 after 60 s.
double until_running(wm::Metrics& metrics, double running, Clock::time_point since) {
  while (ms_since(since) < 60000) {
    if (family_sum(metrics.render(), "workload_map_workloads", "phase=\"Running\"") >= running) return ms_since(since);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int workloads = 10000, changes = 20, burst = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workloads")) workloads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--changes")) changes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--burst")) burst = std::atoi(argv[i + 1]);
  }
  wm::policy::StateStore state(wm::policy::StateSources{});
  if (!state.load().empty()) return 1;
  BenchApi api(workloads);
  wm::kube::Discovery discovery(api);
  wm::Metrics metrics;
  wm::Logger log(wm::LogLevel::Error);
  wm::controllers::EventRecorder events(api, "bench", log);
  const double rss_before = wm::bench::process_usage(getpid()).rss_mib;
  std::printf("workload metrics over %d JobSets in %d namespaces (%d Jobs, %d pods, %d KAI PodGroups), 4 GPUs a pod\n",
              workloads, kNamespaces, 2 * workloads, 5 * workloads, workloads);
  std::atomic<bool> stop{false};
  wm::controllers::WorkloadDemandWatch demand({api, discovery, state, metrics, log, events});
  const auto start = Clock::now();
  std::thread watching([&] { demand.watch(stop); }), publishing([&] { demand.publish(stop); });
  while (family_sum(metrics.render(), "workload_map_workloads", "kind=\"JobSet\"") < workloads) {
    if (ms_since(start) > 600000) return 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double counted_ms = ms_since(start);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the round that counted the last sets its gauges
  const std::string text = metrics.render();
  const double cpu = wm::bench::process_usage(getpid()).cpu_seconds;
  const double rss_counted = wm::bench::process_usage(getpid()).rss_mib;
  malloc_trim(0);  // as the server does every few seconds (webhook/server.cpp): the lists' pages handed back
  const double heap_mib = double(mallinfo2().uordblks + mallinfo2().hblkhd) / 1048576;
  std::printf("every workload counted %.0f ms after the start (lists, and every workload made; %.1f s CPU)\n",
              counted_ms, cpu);
  std::printf(
      "held: %.0f objects, %.0f pods, %.0f gangs, %.1f MiB of JSON; heap in use %.0f MiB; RSS %.0f MiB once "
      "trimmed (%.0f MiB untrimmed, %.0f MiB before the start)\n",
      family_sum(text, "workload_map_live_objects", "\"object\""),
      family_sum(text, "workload_map_live_objects", "\"pod\""),
      family_sum(text, "workload_map_live_objects", "\"gang\""),
      family_sum(text, "workload_map_live_object_bytes", "") / 1048576, heap_mib,
      wm::bench::process_usage(getpid()).rss_mib, rss_counted, rss_before);
  std::printf("GPUs requested, Pending: %.0f; gangs waiting: %.0f; series: %zu lines\n",
              family_sum(text, "workload_map_workload_requests", "nvidia.com/gpu"),
              family_sum(text, "workload_map_gangs_waiting", ""), size_t(std::count(text.begin(), text.end(), '\n')));

  std::vector<double> latencies;
  for (int k = 0; k < changes && k < workloads; ++k) {
    const auto since = Clock::now();
    make_running(api, k);
    latencies.push_back(until_running(metrics, k + 1, since));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::sort(latencies.begin(), latencies.end());
  if (!latencies.empty())
    std::printf("phase change -> metric, one workload at a time (%zu): median %.0f ms, max %.0f ms\n", latencies.size(),
                latencies[latencies.size() / 2], latencies.back());
  if (burst > 0 && changes + burst <= workloads) {
    const auto since = Clock::now();
    for (int k = changes; k < changes + burst; ++k) make_running(api, k);
    std::printf("phase change -> metric, %d workloads at once (%d pod events): %.0f ms\n", burst, 5 * burst,
                until_running(metrics, changes + burst, since));
  }
  std::printf("RSS at the end %.0f MiB; CPU %.1f s\n", wm::bench::process_usage(getpid()).rss_mib,
              wm::bench::process_usage(getpid()).cpu_seconds);
  stop = true;
  watching.join();
  publishing.join();
  return 0;
}
