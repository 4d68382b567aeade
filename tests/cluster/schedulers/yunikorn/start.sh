# Sourced by tests/cluster/scheduler.sh: YuniKorn's scheduler (the k8shim with its core in one process) as its
# deployments/scheduler manifests run it: NAMESPACE from the pod's namespace, the yunikorn-configs ConfigMap as
# shipped (deployments/scheduler/yunikorn-configs.yaml: one partition, queues placed by namespace). The
# admission controller is left out: it sets the scheduler name and the app labels, which the profile writes.
# The core's REST service listens on its fixed port, 9080, so one YuniKorn runs on a machine at a time.
src=$(module_dir github.com/apache/yunikorn-k8shim)
kubectl create namespace yunikorn --dry-run=client -o yaml | kubectl apply -f - > /dev/null
kubectl apply -n yunikorn -f "$src/deployments/scheduler/yunikorn-configs.yaml" > /dev/null
start "$dir" yunikorn-scheduler env NAMESPACE=yunikorn KUBECONFIG="$dir/kubeconfig" "$bin/yunikorn-scheduler"
wait_ready yunikorn-scheduler "http://127.0.0.1:9080/ws/v1/scheduler/healthcheck"
