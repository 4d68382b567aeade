# Sourced by tests/cluster/scheduler.sh: KAI Scheduler as its operator deploys it (pkg/operator/operands: scheduler,
# binder, pod_grouper), from the source in ../shared/kai (scheduler.conf): its CRDs (deployments/kai-scheduler/crds),
# the objects a stock Helm install creates (the chart's default-parent-queue and default-queue, and its priority
# classes: templates/default-queue.yaml, templates/priorityclasses), and the three processes with the operator's
# flags and defaults (scheduler name kai-scheduler, queue label kai.scheduler/queue, the default scheduler
# configuration: conf_util.GetDefaultSchedulerConf). The podgrouper's Karta fallback is on, as by default
# (--generic-karta-fallback), and reads the Karta CRD that the bed installs from ../shared/crds. The admission
# webhooks (GPU sharing, pod mutation for fractions) and the status controllers are left out: whole GPUs need
# neither. Each process reads the bed's kubeconfig (controller-runtime's GetConfigOrDie: $KUBECONFIG).
archive=${WM_SHARED_DIR:-$here/../../../shared}/$(source "$scheduler_dir/scheduler.conf" && echo "$source_archive")
src=$dir/kai-src
rm -rf "$src" && mkdir -p "$src"
tar -xzf "$archive" -C "$src" --strip-components=1 KAI-Scheduler/deployments
chart=$src/deployments/kai-scheduler
apply_crds "$chart/crds"
"$bin/helm" template kai-scheduler "$chart" --namespace kai-scheduler --show-only templates/default-queue.yaml \
  $(cd "$chart" && printf -- '--show-only %s ' templates/priorityclasses/*.yaml) |
  kubectl apply --server-side -f - > "$dir/logs/kai-objects.log"
kubectl get queues.scheduling.run.ai default-queue > /dev/null ||
  { echo "scheduler.sh: KAI's chart made no default-queue" >&2; exit 1; }
# workload-map's catalog as Karta objects, as docs/cluster.md has a KAI user install it (kubectl apply -k
# definitions/): KAI groups the kinds it has no grouper of its own for by them. Without a Karta for such a kind, this
# KAI's podgrouper panics on its pods (plugins/karta/hub.go returns a nil *KartaGrouper as a Grouper) and they never
# get a PodGroup.
kubectl apply -k "$here/../../definitions" > "$dir/logs/kai-catalog.log"

kai_start() {
  local name=$1
  shift
  start "$dir" "$name" env KUBECONFIG="$dir/kubeconfig" "$bin/$name" "$@"
}
metrics=$(free_port) && health=$(free_port)
kai_start kai-podgrouper --scheduler-name kai-scheduler --queue-label-key kai.scheduler/queue \
  --metrics-bind-address "127.0.0.1:$metrics" --health-probe-bind-address "127.0.0.1:$health"
wait_ready kai-podgrouper "http://127.0.0.1:$health/readyz"
metrics=$(free_port) && plugins=$(free_port)
kai_start kai-scheduler --scheduler-name kai-scheduler --queue-label-key kai.scheduler/queue \
  --namespace kai-scheduler --listen-address "127.0.0.1:$metrics" --plugin-server-port "$plugins"
wait_ready kai-scheduler "http://127.0.0.1:$metrics/metrics"
metrics=$(free_port) && health=$(free_port)
kubectl create namespace kai-scheduler --dry-run=client -o yaml | kubectl apply -f - > /dev/null
kai_start kai-binder --scheduler-name kai-scheduler --resource-reservation-namespace kai-resource-reservation \
  --scale-adjust-namespace kai-scale-adjust \
  --metrics-bind-address "127.0.0.1:$metrics" --health-probe-bind-address "127.0.0.1:$health"
wait_ready kai-binder "http://127.0.0.1:$metrics/metrics"
