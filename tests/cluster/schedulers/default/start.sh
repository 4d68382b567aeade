# Sourced by tests/cluster/scheduler.sh: kube-scheduler of the control plane's own release (tests/cluster/go.mod),
# with its default profile (default-scheduler) and no leader election, as kubeadm runs it; with the control plane's
# feature gates (up.sh WM_FEATURE_GATES), as a cluster runs all its components with the same.
port=$(free_port)
gates=$(cat "$dir/feature-gates" 2>/dev/null || true)
gate_flags=()
[[ -n $gates ]] && gate_flags=(--feature-gates "$gates")
cat > "$dir/kube-scheduler.yaml" <<CONFIG
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$dir/kubeconfig"}
leaderElection: {leaderElect: false}
CONFIG
start "$dir" kube-scheduler "$bin/kube-scheduler" --config "$dir/kube-scheduler.yaml" \
  --bind-address 127.0.0.1 --secure-port "$port" --authentication-kubeconfig "$dir/kubeconfig" \
  --authorization-kubeconfig "$dir/kubeconfig" --v 1 "${gate_flags[@]}"
wait_ready kube-scheduler "https://127.0.0.1:$port/readyz"
