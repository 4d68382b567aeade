#!/usr/bin/env bash
# Adds fake nodes to the control plane of tests/cluster/up.sh DIR: Ready nodes with cpu, memory, pods and
# nvidia.com/gpu capacity, kept by KWOK (build/cluster/bin/kwok, built by build.sh), the fake kubelet that
# Kubernetes' own scheduler tests use. A pod bound to one becomes Running through KWOK's stages; it finishes
# (Succeeded, exit 0) when a test annotates it `workload-map.io/test-complete=true`; it goes when deleted.
#   tests/cluster/nodes.sh DIR COUNT [--gpus N] [--cpu N] [--memory Q] [--pods N] [--prefix P] [--label K=V]...
# Defaults: 8 GPUs, 64 cpu, 512Gi, 110 pods, prefix `node`. Nodes are named PREFIX-0, PREFIX-1, ...; a second
# call with the same prefix continues the numbering. Each node is labelled workload-map.io/node-pool=PREFIX and
# kubernetes.io/hostname, plus any --label. The first call starts KWOK; down.sh DIR stops it with the rest.
# Exits once every new node is Ready and untainted.
set -euo pipefail
usage() { echo "usage: $0 DIR COUNT [--gpus N] [--cpu N] [--memory Q] [--pods N] [--prefix P] [--label K=V]..." >&2; exit 2; }
[[ $# -ge 2 ]] || usage
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
dir=$(cd "$1" && pwd)
count=$2
shift 2
[[ $count =~ ^[0-9]+$ ]] || usage
gpus=8 cpu=64 memory=512Gi pods=110 prefix=node labels=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --gpus) gpus=$2 ;;
    --cpu) cpu=$2 ;;
    --memory) memory=$2 ;;
    --pods) pods=$2 ;;
    --prefix) prefix=$2 ;;
    --label) labels+=("$2") ;;
    *) usage ;;
  esac
  shift 2
done
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
[[ -x $bin/kwok ]] || { echo "nodes.sh: $bin/kwok is missing: run tests/cluster/build.sh" >&2; exit 1; }
[[ -f $dir/kubeconfig ]] || { echo "nodes.sh: no control plane in $dir (up.sh)" >&2; exit 1; }
kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }

# --- KWOK, once per control plane ----------------------------------------------------------------------------
if [[ ! -f $dir/pids/kwok ]] || ! kill -0 "$(cat "$dir/pids/kwok")" 2>/dev/null; then
  # KWOK's own stages, as its release ships them (kustomize/stage): nodes become Ready and renew a Lease; pods on
  # them become Running, and go when deleted. Completion is the test's to ask for, not KWOK's default (which
  # finishes every Job pod at once): a gang must be seen running before it is let go.
  stages=$(cd "$here/nodes" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage
  {
    for s in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease pod/fast/pod-ready \
      pod/fast/pod-delete; do
      cat "$stages/$s.yaml"
      echo ---
    done
    # pod/fast/pod-complete with the test's annotation in place of "owned by a Job".
    sed -e "s|key: '.metadata.ownerReferences.\[\].kind'|key: '.metadata.annotations[\"workload-map.io/test-complete\"]'|" \
      -e "s|^      - 'Job'$|      - 'true'|" "$stages/pod/fast/pod-complete.yaml"
  } > "$dir/kwok-stages.yaml"
  grep -q 'workload-map.io/test-complete' "$dir/kwok-stages.yaml" ||
    { echo "nodes.sh: KWOK's pod-complete stage changed shape; update nodes.sh" >&2; exit 1; }
  start "$dir" kwok "$bin/kwok" --kubeconfig "$dir/kubeconfig" --config "$dir/kwok-stages.yaml" \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake --node-lease-duration-seconds 40 \
    --cidr 10.244.0.0/16 --node-ip 10.96.0.1 --server-address "127.0.0.1:$(free_port)"
fi

# --- the nodes -------------------------------------------------------------------------------------------------
first=0
while kubectl get node "$prefix-$first" >/dev/null 2>&1; do first=$((first + 1)); done
label_lines=""
for l in "${labels[@]}"; do label_lines+="    \"${l%%=*}\": \"${l#*=}\""$'\n'; done
manifest=""
names=()
for ((i = first; i < first + count; i++)); do
  name=$prefix-$i
  names+=("$name")
  manifest+="apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
  labels:
    kubernetes.io/hostname: $name
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
    workload-map.io/node-pool: $prefix
$label_lines
status:
  capacity: &capacity {cpu: \"$cpu\", memory: \"$memory\", pods: \"$pods\", nvidia.com/gpu: \"$gpus\"}
  allocatable: *capacity
---
"
done
((count > 0)) || exit 0
printf '%s' "$manifest" | kubectl create -f - > /dev/null
deadline=$((SECONDS + 60))
# Ready, and the not-ready taint the API server puts on every new node lifted by the node lifecycle controller.
ready='{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[?(@.key=="node.kubernetes.io/not-ready")].effect}'
for name in "${names[@]}"; do
  until [[ $(kubectl get node "$name" -o jsonpath="$ready") == "True " ]]; do
    kill -0 "$(cat "$dir/pids/kwok")" 2>/dev/null || { tail -n 30 "$dir/logs/kwok.log" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "nodes.sh: $name not Ready after 60 s" >&2; tail -n 30 "$dir/logs/kwok.log" >&2; exit 1; }
    sleep 0.3
  done
done
echo "nodes.sh: ${#names[@]} nodes Ready (${names[0]}..${names[-1]}: $gpus GPUs, $cpu cpu, $memory each)" >&2
