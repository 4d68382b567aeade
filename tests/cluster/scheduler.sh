#!/usr/bin/env bash
# Runs a real scheduler beside the control plane of tests/cluster/up.sh DIR, with its own CRDs and its upstream
# default configuration. NAME is a folder of tests/cluster/schedulers/: its start.sh (sourced here) says how, and
# cites the upstream install it follows; its binaries are build/cluster/bin/* (build.sh). Exits once it is ready;
# a second call for a running scheduler does nothing. down.sh DIR stops it with the rest.
#   tests/cluster/scheduler.sh NAME DIR      NAME: default, coscheduling, volcano, kueue, yunikorn, kai,
#                                                native (kube-scheduler's own gangs: up.sh WM_FEATURE_GATES=GenericWorkload=true)
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 NAME DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
name=$1
dir=$(cd "$2" && pwd)
scheduler_dir=$here/schedulers/$name
[[ -f $scheduler_dir/start.sh ]] || { echo "scheduler.sh: no scheduler $name ($scheduler_dir/start.sh)" >&2; exit 2; }
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
[[ -f $dir/kubeconfig ]] || { echo "scheduler.sh: no control plane in $dir (up.sh)" >&2; exit 1; }
kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
[[ -f $dir/schedulers/$name ]] && exit 0
mkdir -p "$dir/schedulers"

# The source of the module the binaries came from: its CRDs and configuration files, as released.
module_dir() { (cd "$scheduler_dir" && go list -m -f '{{.Dir}}' "$1"); }

source "$scheduler_dir/start.sh"
touch "$dir/schedulers/$name"
echo "scheduler.sh: $name ready" >&2
