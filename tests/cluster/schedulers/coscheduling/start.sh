# Sourced by tests/cluster/scheduler.sh: scheduler-plugins installed as its chart installs it
# (manifests/install/charts/as-a-second-scheduler): a second kube-scheduler named scheduler-plugins-scheduler, and
# the controller that keeps PodGroup status. Its profile is the Coscheduling plugin's own configuration
# (manifests/coscheduling/scheduler-config.yaml) under the chart's scheduler name, with the chart's pluginConfig
# (permitWaitingTimeSeconds: 10). The chart's other default plugins (CapacityScheduling, NodeResourceTopologyMatch,
# NodeResourcesAllocatable) are not gang scheduling and want CRDs of their own, so they are left out.
# One setting is the bed's own: the Coscheduling plugin requeues the pods it rejected on a Pod or PodGroup event, not
# on a Node add (EventsToRegister, scheduler-plugins v0.34.7 pkg/coscheduling/coscheduling.go), so a gang that waited
# for capacity starts at kube-scheduler's periodic flush of unschedulable pods, 5 minutes by default. The bed flushes
# every 30 s (kube-scheduler's --pod-max-in-unschedulable-pods-duration, deprecated but served in v1.34): the same
# path, in a tenth of the wait. docs/gangs.md tells operators the same.
src=$(module_dir sigs.k8s.io/scheduler-plugins)
# The controller's CRDs (it also runs the ElasticQuota controller, and waits for that CRD).
apply_crds "$src/config/crd/bases/scheduling.x-k8s.io_podgroups.yaml" \
  "$src/config/crd/bases/scheduling.x-k8s.io_elasticquotas.yaml"
port=$(free_port)
cat > "$dir/coscheduling-config.yaml" <<CONFIG
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
clientConnection: {kubeconfig: "$dir/kubeconfig"}
profiles:
- schedulerName: scheduler-plugins-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: 10
CONFIG
start "$dir" coscheduling-scheduler "$bin/coscheduling-scheduler" --config "$dir/coscheduling-config.yaml" \
  --bind-address 127.0.0.1 --secure-port "$port" --authentication-kubeconfig "$dir/kubeconfig" \
  --authorization-kubeconfig "$dir/kubeconfig" --pod-max-in-unschedulable-pods-duration 30s --v 2
probe=$(free_port)
start "$dir" coscheduling-controller env KUBECONFIG="$dir/kubeconfig" "$bin/coscheduling-controller" \
  --metricsAddr 0 --probeAddr "127.0.0.1:$probe"
wait_ready coscheduling-scheduler "https://127.0.0.1:$port/readyz"
wait_ready coscheduling-controller "http://127.0.0.1:$probe/readyz"
