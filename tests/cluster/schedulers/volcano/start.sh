# Sourced by tests/cluster/scheduler.sh: Volcano as its Helm chart installs it (installer/helm/chart/volcano, which
# hack/local-up-volcano.sh and the e2e runs use): its CRDs, vc-scheduler with the chart's volcano-scheduler.conf
# (enqueue, allocate, backfill; priority, gang, conformance, then overcommit, drf, predicates, proportion, nodeorder,
# binpack, and here network-topology-aware), and vc-controller-manager with its default controllers (PodGroup phases,
# the queues, Volcano Jobs, HyperNodes).
# The scheduler makes the `default` queue itself. The admission webhooks are left out: they police Volcano's own
# objects, and the pods here are created by the profile's webhook and the workloads' controllers.
src=$(module_dir volcano.sh/volcano)
chart=$src/installer/helm/chart/volcano
apply_crds "$chart/crd/bases" "$chart/charts/jobflow/crd/bases"  # the chart and its jobflow subchart
# Network topology, as the chart's values show it (controller_config_override, the CI conf's plugin): the chart's
# scheduler conf with network-topology-aware in its last tier, and HyperNodes discovered from the node label the bed's
# racks carry (tests/cluster/topology_test.cpp), each rack a HyperNode of tier name example.com/rack. The controller
# reads <release>-controller-configmap in volcano-system (pkg/controllers/hypernode/configmap_handler.go).
{ cat "$chart/config/volcano-scheduler.conf"; echo "  - name: network-topology-aware"; } > "$dir/volcano-scheduler.conf"
kubectl create namespace volcano-system --dry-run=client -o yaml | kubectl apply -f - > /dev/null
kubectl apply -f - > /dev/null <<'CONFIG'
apiVersion: v1
kind: ConfigMap
metadata: {name: volcano-controller-configmap, namespace: volcano-system}
data:
  volcano-controller.conf: |
    networkTopologyDiscovery:
    - source: label
      enabled: true
      config:
        networkTopologyTypes:
          racks:
          - nodeLabel: example.com/rack
          - nodeLabel: kubernetes.io/hostname
CONFIG
health=$(free_port) && metrics=$(free_port)
start "$dir" volcano-scheduler "$bin/volcano-scheduler" --kubeconfig "$dir/kubeconfig" --logtostderr \
  --scheduler-conf "$dir/volcano-scheduler.conf" --enable-healthz=true --healthz-address "127.0.0.1:$health" \
  --listen-address "127.0.0.1:$metrics" --leader-elect=false --v 3
wait_ready volcano-scheduler "http://127.0.0.1:$health/healthz"
health=$(free_port) && metrics=$(free_port)
start "$dir" volcano-controller-manager "$bin/volcano-controller-manager" --kubeconfig "$dir/kubeconfig" \
  --logtostderr --enable-healthz=true --healthz-address "127.0.0.1:$health" --listen-address "127.0.0.1:$metrics" \
  --leader-elect=false --v 2
wait_ready volcano-controller-manager "http://127.0.0.1:$health/healthz"
# The default queue, which the scheduler creates when it starts.
deadline=$((SECONDS + 60))
until kubectl get queues.scheduling.volcano.sh default > /dev/null 2>&1; do
  ((SECONDS < deadline)) || { echo "scheduler.sh: volcano made no default queue" >&2; exit 1; }
  sleep 0.5
done
