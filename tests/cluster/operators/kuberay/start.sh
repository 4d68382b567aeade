# Sourced by tests/cluster/operator.sh: KubeRay's operator as its Helm chart runs it with batch scheduling on
# (helm-chart/kuberay-operator, batchScheduler.name: volcano -> --batch-scheduler=volcano), the way KubeRay's Volcano
# guide installs it (ray.io docs, k8s-ecosystem/volcano.md). A RayCluster labelled ray.io/scheduler-name: volcano then
# gets KubeRay's own PodGroup and its pods name it. Its CRDs are ../shared/crds' (the fixture installs them); its
# webhooks are off by default in the chart, and so here. Leader election off: one replica.
health=$(free_port)
start "$dir" kuberay-controller "$bin/kuberay-controller" --kubeconfig "$dir/kubeconfig" \
  --batch-scheduler=volcano --enable-leader-election=false --metrics-addr=0 \
  --health-probe-bind-address="127.0.0.1:$health" --log-stdout-encoder=console
wait_ready kuberay-controller "http://127.0.0.1:$health/readyz"
echo "operator.sh: kuberay ready" >&2
