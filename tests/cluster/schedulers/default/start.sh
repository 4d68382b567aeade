# Sourced by tests/cluster/scheduler.sh: kube-scheduler of the control plane's own release (tests/cluster/go.mod),
# with its default profile (default-scheduler) and no leader election, as kubeadm runs it.
port=$(free_port)
cat > "$dir/kube-scheduler.yaml" <<CONFIG
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$dir/kubeconfig"}
leaderElection: {leaderElect: false}
CONFIG
start "$dir" kube-scheduler "$bin/kube-scheduler" --config "$dir/kube-scheduler.yaml" \
  --bind-address 127.0.0.1 --secure-port "$port" --authentication-kubeconfig "$dir/kubeconfig" \
  --authorization-kubeconfig "$dir/kubeconfig" --v 1
wait_ready kube-scheduler "https://127.0.0.1:$port/readyz"
