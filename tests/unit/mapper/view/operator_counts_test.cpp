// The pods a catalog definition counts, against the rule of the operator that starts them, for the cases the
// upstream fixtures (tests/fixtures/upstream/) do not cover.
#include <catch2/catch.hpp>

#include "mapper/view/workload_view.h"
#include "tests/support/test_support.h"

namespace wm {

namespace {

// The catalog's view of the one object in `yaml`, which it must understand without a warning.
view::WorkloadView view_of(const std::string& yaml) {
  auto objects = test::parse_yaml(yaml);
  REQUIRE(objects.size() == 1);
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  CHECK(view.problems.empty());
  return view;
}

// Pods per component of the one object in `yaml`, as "component=pods" joined by spaces.
std::string pods_by_component(const std::string& yaml) {
  const view::WorkloadView view = view_of(yaml);
  std::string out;
  for (const auto& c : view.components)
    for (const auto& i : c.instances)
      if (i.shape != view::PodShape::Logical) out += (out.empty() ? "" : " ") + c.name + "=" + std::to_string(i.pods);
  return out;
}

// The workload's total requests, as "name=quantity" joined by spaces.
std::string total_requests(const std::string& yaml) {
  const view::WorkloadView view = view_of(yaml);
  std::string out;
  for (const auto& [name, quantity] : view.total_requests)
    out += (out.empty() ? "" : " ") + name + "=" + quantity.str();
  return out;
}

std::string llm_inference_service(const std::string& version, const std::string& annotations, const std::string& spec) {
  return "apiVersion: serving.kserve.io/" + version + "\nkind: LLMInferenceService\nmetadata: {name: m" + annotations +
         "}\nspec:\n" + spec;
}

}  // namespace

// kserve pkg/controller/llmisvc: expectedSingleNodeMainDeployment, expectedMainMultiNodeLWS,
// expectedPrefillMultiNodeLWS; pkg/apis/serving/v1alpha2 ParallelismSpec.GetSize; utils.GetForceStopRuntime.
TEST_CASE("LLMInferenceService: the pods KServe's llmisvc controller starts") {
  const std::string pod = "{containers: [{name: main, image: vllm}]}";
  for (const std::string version : {"v1alpha1", "v1alpha2"}) {
    INFO(version);
    // A Deployment; replicas nil is the Deployment's 1, or the autoscaler's minimum.
    CHECK(pods_by_component(llm_inference_service(version, "", "  template: " + pod + "\n")) == "main=1");
    CHECK(pods_by_component(llm_inference_service(
              version, "", "  scaling: {minReplicas: 2, maxReplicas: 4}\n  template: " + pod + "\n")) == "main=2");
    // Pipeline parallelism: groups of `pipeline` pods, a leader and pipeline-1 workers each.
    CHECK(pods_by_component(llm_inference_service(version, "",
                                                  "  replicas: 3\n  parallelism: {pipeline: 4, tensor: 8}\n"
                                                  "  template: " +
                                                      pod + "\n  worker: " + pod + "\n")) == "main=3 worker=9");
    // No leader template: the worker template runs every pod of a group.
    CHECK(pods_by_component(llm_inference_service(
              version, "", "  replicas: 2\n  parallelism: {data: 8, dataLocal: 2}\n  worker: " + pod + "\n")) ==
          "worker=8");
    // data / dataLocal is an integer division, and a group is at least one pod.
    CHECK(pods_by_component(llm_inference_service(
              version, "", "  parallelism: {data: 7, dataLocal: 2}\n  worker: " + pod + "\n")) == "worker=3");
    CHECK(pods_by_component(llm_inference_service(
              version, "", "  parallelism: {data: 1, dataLocal: 8}\n  worker: " + pod + "\n")) == "worker=1");
    // Without parallelism the LeaderWorkerSet's size is its default, 1: the leader alone.
    CHECK(pods_by_component(llm_inference_service(version, "", "  template: " + pod + "\n  worker: " + pod + "\n")) ==
          "main=1 worker=0");
    // A multi-node prefill pool beside a single-node decode pool.
    CHECK(pods_by_component(llm_inference_service(version, "",
                                                  "  template: " + pod +
                                                      "\n  prefill:\n    replicas: 2\n    parallelism: {pipeline: 2}\n"
                                                      "    template: " +
                                                      pod + "\n    worker: " + pod + "\n")) ==
          "main=1 prefill=2 prefill-worker=2");
    // Stopped: every pool is deleted.
    CHECK(pods_by_component(llm_inference_service(version, ", annotations: {serving.kserve.io/stop: \"true\"}",
                                                  "  replicas: 2\n  parallelism: {pipeline: 2}\n  template: " + pod +
                                                      "\n  worker: " + pod + "\n")) == "main=0 worker=0");
  }
}

// kserve/website docs/model-serving/generative-inference/multi-node/multi-node.md ("How to Set GPU Allocation per
// Node", cases 1 to 3) and computeRayNodeAndGPUs in KServe's predictor reconciler.
TEST_CASE("InferenceService workerSpec: KServe's Ray node count") {
  auto isvc = [](const std::string& head_gpus, const std::string& worker) {
    return "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m}\nspec:\n  predictor:\n"
           "    model: {modelFormat: {name: huggingface}" +
           (head_gpus.empty() ? std::string() : ", resources: {requests: {nvidia.com/gpu: \"" + head_gpus + "\"}}") +
           "}\n    workerSpec: " + worker + "\n";
  };
  const std::string eight = ", containers: [{name: worker-container, resources: {requests: {nvidia.com/gpu: \"8\"}}}]";
  // Case 1: 2 x 8 GPUs, 8 per worker pod: 2 pods (the head and one worker).
  CHECK(pods_by_component(isvc("", "{pipelineParallelSize: 2, tensorParallelSize: 8" + eight + "}")) ==
        "predictor=1 worker=1");
  // Case 3: 8 GPUs, 8 per pod: the head alone.
  CHECK(pods_by_component(isvc("", "{pipelineParallelSize: 1, tensorParallelSize: 8" + eight + "}")) ==
        "predictor=1 worker=0");
  // A head that holds every GPU runs alone; a head with some runs the rest on one-GPU workers.
  CHECK(pods_by_component(isvc("16", "{pipelineParallelSize: 2, tensorParallelSize: 8" + eight + "}")) ==
        "predictor=1 worker=0");
  CHECK(pods_by_component(isvc("4", "{pipelineParallelSize: 2, tensorParallelSize: 4}")) == "predictor=1 worker=4");
  // No GPU count in the object: one Ray node per GPU; 3 GPUs over 2-GPU workers: ceil(3 / 2) = 2 nodes.
  CHECK(pods_by_component(isvc("", "{pipelineParallelSize: 4, tensorParallelSize: 1}")) == "predictor=1 worker=3");
  CHECK(pods_by_component(isvc("",
                               "{pipelineParallelSize: 3, containers: [{name: w, resources: {limits: "
                               "{nvidia.com/gpu: 2}}}]}")) == "predictor=1 worker=1");
}

// KServe's default Serverless mode hands minReplicas to Knative as the revision's min-scale; Knative starts a revision
// at its initial scale (1 by default) even with min-scale 0 (knative/docs serving/autoscaling/scale-bounds.md), as
// the Knative Service definition counts. A RawDeployment's Deployment has minReplicas as its replicas.
TEST_CASE("InferenceService minReplicas 0: one pod in Serverless mode, none in RawDeployment") {
  auto isvc = [](const std::string& annotations) {
    return "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m" + annotations +
           "}\nspec:\n  predictor:\n    minReplicas: 0\n    model: {modelFormat: {name: sklearn}, resources: {limits: "
           "{nvidia.com/gpu: 1}}}\n  transformer:\n    minReplicas: 0\n    containers: [{name: t, image: x}]\n";
  };
  CHECK(pods_by_component(isvc("")) == "predictor=1 transformer=1");
  CHECK(pods_by_component(isvc(", annotations: {serving.kserve.io/deploymentMode: Serverless}")) ==
        "predictor=1 transformer=1");
  CHECK(pods_by_component(isvc(", annotations: {serving.kserve.io/deploymentMode: RawDeployment}")) ==
        "predictor=0 transformer=0");
  CHECK(total_requests(isvc("")) == "nvidia.com/gpu=1");
}

// Dynamo v1alpha1 (deploy/cloud/operator graph.go and controller_common.GetResourcesConfig): the main container's
// resources, with the service's own cpu, memory, gpu (under gpuType) and custom entries copied over them.
TEST_CASE("DynamoGraphDeployment v1alpha1: resources as the operator merges them") {
  auto graph = [](const std::string& service) {
    return "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
           "    Worker: " +
           service + "\n";
  };
  // GPUs asked for on the main container only.
  CHECK(total_requests(graph("{replicas: 2, extraPodSpec: {mainContainer: {image: x, resources: {limits: "
                             "{nvidia.com/gpu: \"2\"}, requests: {cpu: \"1\"}}}}}")) == "cpu=2 nvidia.com/gpu=4");
  // The service's resources win key by key, and the main container's other keys stay.
  CHECK(total_requests(graph("{resources: {requests: {cpu: \"4\"}}, extraPodSpec: {mainContainer: {resources: "
                             "{requests: {cpu: \"1\", memory: 1Gi, nvidia.com/gpu: \"1\"}}}}}")) ==
        "cpu=4 memory=1073741824 nvidia.com/gpu=1");
  // gpuType names the resource; custom entries are resources of their own name.
  CHECK(total_requests(graph("{resources: {limits: {gpu: \"8\", gpuType: amd.com/gpu, custom: "
                             "{rdma/ib: \"1\"}}}}")) == "amd.com/gpu=8 rdma/ib=1");
  // extraPodSpec.containers run beside the main container (graph.go: podSpec.Containers = append(podSpec.Containers,
  // extraPodSpec.Containers...)): a GPU on one of them is the pod's.
  CHECK(total_requests(graph("{extraPodSpec: {mainContainer: {image: x}, containers: [{name: gpu, image: y, "
                             "resources: {limits: {nvidia.com/gpu: \"1\"}}}]}}")) == "nvidia.com/gpu=1");
  CHECK(total_requests(graph("{replicas: 2, resources: {limits: {gpu: \"1\"}}, extraPodSpec: {containers: [{name: "
                             "s, image: y, resources: {requests: {cpu: 500m}}}]}}")) == "cpu=1 nvidia.com/gpu=2");
}

// Kubeflow's notebook-controller (notebook_controller.go generateStatefulSet): a StatefulSet of 1 replica, 0 while
// the annotation kubeflow-resource-stopped is present, whatever its value.
TEST_CASE("Notebook: one pod, none while stopped") {
  auto notebook = [](const std::string& version, const std::string& annotations) {
    return "apiVersion: kubeflow.org/" + version + "\nkind: Notebook\nmetadata: {name: nb" + annotations +
           "}\nspec:\n  template:\n    spec:\n      containers: [{name: nb, image: x, resources: {limits: "
           "{nvidia.com/gpu: 2}}}]\n";
  };
  for (const std::string version : {"v1", "v1beta1"}) {
    INFO(version);
    CHECK(pods_by_component(notebook(version, "")) == "server=1");
    CHECK(total_requests(notebook(version, "")) == "nvidia.com/gpu=2");
    CHECK(pods_by_component(notebook(version, ", annotations: {kubeflow-resource-stopped: \"\"}")) == "server=0");
    CHECK(pods_by_component(
              notebook(version, ", annotations: {kubeflow-resource-stopped: \"2025-01-01T00:00:00Z\"}")) == "server=0");
  }
}

// The Notebook API's template has only a spec (kubeflow/notebooks api/v1/notebook_types.go NotebookTemplateSpec):
// labels written there are pruned. generateStatefulSet copies the Notebook's own labels and annotations to its pod, so
// the pod labels and annotations are edited there, and the scheduler in the template's spec.
TEST_CASE("Notebook: pod labels and annotations on the Notebook itself, where the controller copies them from") {
  for (const std::string version : {"v1", "v1beta1"}) {
    INFO(version);
    auto objects = test::parse_yaml("apiVersion: kubeflow.org/" + version +
                                    "\nkind: Notebook\nmetadata: {name: nb}\nspec: {template: {spec: {containers: "
                                    "[{name: nb, image: x}]}}}\n");
    auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
    REQUIRE(match.definition);
    view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
    const view::InstanceView& server = view.components.at(1).instances.at(0);
    CHECK(server.fields.labels == "/metadata/labels");
    CHECK(server.fields.annotations == "/metadata/annotations");
    CHECK(server.fields.scheduler_name == "/spec/template/spec/schedulerName");
  }
}

// An LLMInferenceService may take its whole pod spec from an LLMInferenceServiceConfig (spec.baseRefs, or KServe's
// well-known defaults): nothing in the object says what its pods are, so it is not understood (the failure policy
// decides), never an empty view that would let the webhook admit it unedited without a word.
TEST_CASE("a workload whose pods no template in the object describes is not understood") {
  auto objects = test::parse_yaml(llm_inference_service(
      "v1alpha2", "", "  model: {uri: hf://facebook/opt-125m}\n  replicas: 2\n  router: {scheduler: {}, route: {}}\n"));
  auto match = test::builtin_catalog().find(objects[0].api_version, objects[0].kind);
  REQUIRE(match.definition);
  view::WorkloadView view = view::build_view(*match.definition, *objects[0].doc);
  REQUIRE(view.problems.size() == 1);
  CHECK_THAT(view.problems[0], Catch::StartsWith("no pod template or pod spec where the definition looks"));
}

// agent-sandbox api/v1alpha1 (replicas: 0 or 1, default 1) and api/v1beta1 (operatingMode, default Running).
TEST_CASE("Sandbox: one pod unless scaled to zero or suspended") {
  const std::string tmpl = "  podTemplate: {spec: {containers: [{name: a, image: x}]}}\n";
  CHECK(pods_by_component("apiVersion: agents.x-k8s.io/v1alpha1\nkind: Sandbox\nmetadata: {name: s}\nspec:\n" + tmpl) ==
        "agent=1");
  CHECK(pods_by_component("apiVersion: agents.x-k8s.io/v1alpha1\nkind: Sandbox\nmetadata: {name: s}\nspec:\n"
                          "  replicas: 0\n" +
                          tmpl) == "agent=0");
  CHECK(pods_by_component("apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata: {name: s}\nspec:\n"
                          "  operatingMode: Suspended\n" +
                          tmpl) == "agent=0");
}

// zilliztech/milvus-operator pkg/controllers/components_test.go: TestGetComponentsBySpec,
// TestGetComponentsWithCdcBySpec and TestGetComponentWorkloadsBySpec, on objects as the defaulting webhook leaves them
// (milvus_webhook.go: DefaultComponents names mixCoord in cluster mode unless the object names a coordinator).
TEST_CASE("Milvus: the Deployments the operator runs, by mode, image version, cdc and groups") {
  auto milvus = [](const std::string& spec) {
    return "apiVersion: milvus.io/v1beta1\nkind: Milvus\nmetadata: {name: m}\nspec: " + spec + "\n";
  };
  // Standalone (StandaloneComponents), then cluster before 2.6 with the coordinators (MilvusComponents) or a mixCoord
  // (MixtureComponents), then 2.6 (Milvus2_6Components: a streaming node, no index node, mixCoord even where the
  // object names a coordinator).
  CHECK(pods_by_component(milvus("{components: {image: milvusdb/milvus:v2.5.15}}")) == "standalone=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.5.15, rootCoord: {}}}")) ==
        "proxy=1 rootcoord=1 datacoord=1 querycoord=1 indexcoord=1 datanode=1 querynode=1 indexnode=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.5.15, mixCoord: {}}}")) ==
        "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.6.0, rootCoord: {}}}")) ==
        "proxy=1 datanode=1 querynode=1 mixcoord=1 streamingnode=1");
  // The version field wins over the image's tag; a tag that is no version is before 2.6, "master-" is after.
  CHECK(pods_by_component(milvus("{mode: cluster, components: {version: v2.5.4, image: milvusdb/milvus:v2.6.0}}")) ==
        "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: \"registry:5000/milvus\"}}")) ==
        "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:master-20250101}}")) ==
        "proxy=1 datanode=1 querynode=1 mixcoord=1 streamingnode=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:2.6-rc1}}")) ==
        "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1");  // ParseTolerant refuses a short pre-release
  // Before 2.6, a streaming node where streamingMode says so, else where the object names one (UseStreamingNode).
  CHECK(
      pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.5.15, streamingMode: true}}")) ==
      "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1 streamingnode=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.5.15, streamingMode: false, "
                                 "streamingNode: {replicas: 2}}}")) ==
        "proxy=1 datanode=1 querynode=1 indexnode=1 mixcoord=1");
  // cdc in either mode.
  CHECK(pods_by_component(milvus("{components: {image: milvusdb/milvus:v2.6.6, cdc: {replicas: 1}}}")) ==
        "standalone=1 cdc=1");
  CHECK(pods_by_component(milvus("{mode: cluster, components: {image: milvusdb/milvus:v2.6.6, cdc: {}}}")) ==
        "proxy=1 datanode=1 querynode=1 mixcoord=1 streamingnode=1 cdc=1");
  // Groups replace the component's own replicas (99 here) with one Deployment per group.
  CHECK(pods_by_component(milvus("{mode: cluster, components: {proxy: {replicas: 99, groups: [{name: zone-b, "
                                 "replicas: 2}, {name: zone-a, replicas: 1}]}}}")) ==
        "proxy=2 proxy=1 datanode=1 querynode=1 mixcoord=1 streamingnode=1");
  // Cluster mode keeps the standalone Deployment at 0 replicas unless the object asks for more.
  CHECK(pods_by_component(milvus("{mode: cluster, components: {standalone: {replicas: 1}}}")) ==
        "standalone=1 proxy=1 datanode=1 querynode=1 mixcoord=1 streamingnode=1");
}

}  // namespace wm
