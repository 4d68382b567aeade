#!/usr/bin/env bash
# Runs the real JobSet controller (sigs.k8s.io/jobset, the release tests/cluster/operators/go.mod pins) beside the
# control plane of tests/cluster/up.sh DIR, as its own manifests install it: its webhooks (defaulting and
# validating JobSets, and JobSet pods) registered as config/components/webhook renders them, with only
# clientConfig pointing at its loopback webhook server. Its own certificate management is off: the serving
# certificate is up.sh's DIR/pki/webhooks. down.sh DIR stops it with the rest.
#   tests/cluster/jobset.sh DIR
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
dir=$(cd "$1" && pwd)
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
version=$(awk '$1 == "sigs.k8s.io/jobset" {print $2}' "$here/operators/go.mod")
source_dir=$(cd "$here/operators" && go list -m -f '{{.Dir}}' "sigs.k8s.io/jobset")

webhook_port=$(free_port) && health_port=$(free_port)
cat > "$dir/jobset-config.yaml" <<CONFIG
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
webhook: {host: 127.0.0.1, port: $webhook_port, certDir: "$dir/pki/webhooks"}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$health_port"}
CONFIG
start "$dir" jobset-controller "$bin/jobset-controller" --config "$dir/jobset-config.yaml" --kubeconfig "$dir/kubeconfig"

ca=$(base64 -w0 < "$dir/pki/ca.crt")
kubectl kustomize "$source_dir/config/components/webhook" |
  kubectl create --dry-run=client -o json -f - |
  jq --arg base "https://127.0.0.1:$webhook_port" --arg ca "$ca" '
    select(.kind | endswith("WebhookConfiguration"))
    | .metadata.name = "jobset-" + .metadata.name
    | .webhooks |= map(.clientConfig = {url: ($base + .clientConfig.service.path), caBundle: $ca})' |
  kubectl apply --server-side -f - > "$dir/logs/jobset-webhooks.log"

deadline=$((SECONDS + 60))
until curl -sf "http://127.0.0.1:$health_port/readyz" > /dev/null; do
  kill -0 "$(cat "$dir/pids/jobset-controller")" 2>/dev/null || { tail -n 30 "$dir/logs/jobset-controller.log" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "jobset.sh: not ready after 60 s" >&2; tail -n 30 "$dir/logs/jobset-controller.log" >&2; exit 1; }
  sleep 0.5
done
echo "jobset.sh: JobSet controller $version ready (webhooks at 127.0.0.1:$webhook_port)" >&2
