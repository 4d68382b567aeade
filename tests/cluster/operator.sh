#!/usr/bin/env bash
# Runs a real workload operator beside the control plane of tests/cluster/up.sh DIR, as its own manifests install
# it: its webhooks (defaulting and validating its kind, and its pods) registered as its kustomize component renders
# them, with only clientConfig pointing at its loopback webhook server. NAME is a folder of tests/cluster/operators/
# (go.mod pins the release; operator.conf says its package, Configuration apiVersion and webhook manifests); the
# binary is build/cluster/bin/NAME-controller (build.sh). Its own certificate management is off: it serves up.sh's
# DIR/pki/webhooks certificate. down.sh DIR stops it with the rest.
#   tests/cluster/operator.sh NAME DIR
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 NAME DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
name=$1
dir=$(cd "$2" && pwd)
conf=$here/operators/$name/operator.conf
[[ -f $conf ]] || { echo "operator.sh: no $conf" >&2; exit 2; }
source "$conf"
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
source_dir=$(cd "$here/operators/$name" && go list -m -f '{{.Dir}}' "$module")
version=$(cd "$here/operators/$name" && go list -m -f '{{.Version}}' "$module")

webhook_port=$(free_port) && health_port=$(free_port)
cat > "$dir/$name-config.yaml" <<CONFIG
apiVersion: $config_api
kind: Configuration
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
webhook: {host: 127.0.0.1, port: $webhook_port, certDir: "$dir/pki/webhooks"}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$health_port"}
CONFIG
start "$dir" "$name-controller" "$bin/$name-controller" --config "$dir/$name-config.yaml" --kubeconfig "$dir/kubeconfig"

ca=$(base64 -w0 < "$dir/pki/ca.crt")
kubectl kustomize "$source_dir/$webhooks" |
  kubectl create --dry-run=client -o json -f - |
  jq --arg name "$name" --arg base "https://127.0.0.1:$webhook_port" --arg ca "$ca" '
    select(.kind | endswith("WebhookConfiguration"))
    | .metadata.name = $name + "-" + .metadata.name
    | .webhooks |= map(.clientConfig = {url: ($base + .clientConfig.service.path), caBundle: $ca})' |
  kubectl apply --server-side -f - > "$dir/logs/$name-webhooks.log"

log=$dir/logs/$name-controller.log
deadline=$((SECONDS + 60))
until curl -sf "http://127.0.0.1:$health_port/readyz" > /dev/null; do
  kill -0 "$(cat "$dir/pids/$name-controller")" 2>/dev/null || { tail -n 30 "$log" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "operator.sh: $name not ready after 60 s" >&2; tail -n 30 "$log" >&2; exit 1; }
  sleep 0.5
done
echo "operator.sh: $name controller $version ready (webhooks at 127.0.0.1:$webhook_port)" >&2
