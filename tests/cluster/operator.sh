#!/usr/bin/env bash
# Runs a real workload operator beside the control plane of tests/cluster/up.sh DIR, as its own manifests install
# it: its webhooks (defaulting and validating its kind, and its pods) registered as its kustomize component renders
# them, with only clientConfig pointing at its loopback webhook server. NAME is a folder of tests/cluster/operators/
# (go.mod pins the release; operator.conf says its package, Configuration apiVersion and webhook manifests); the
# binary is build/cluster/bin/NAME-controller (build.sh). Its own certificate management is off: it serves up.sh's
# DIR/pki/webhooks certificate. down.sh DIR stops it with the rest.
# The same function runs Kueue (tests/cluster/schedulers/kueue/start.sh), which is installed the same way.
# WM_OPERATOR_CONFIG, when set, is more of its Configuration (YAML), e.g. LWS's gangSchedulingManagement.
#   tests/cluster/operator.sh NAME DIR
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 NAME DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
name=$1
dir=$(cd "$2" && pwd)
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
# An operator that is not run the controller-runtime Configuration way (KubeRay) says how in its start.sh, sourced
# here once per control plane.
if [[ -f $here/operators/$name/start.sh ]]; then
  [[ -f $dir/operators/$name ]] && exit 0
  mkdir -p "$dir/operators"
  source "$here/operators/$name/start.sh"
  touch "$dir/operators/$name"
  exit 0
fi
run_operator "$name" "$dir" "$here/operators/$name" "$bin/$name-controller" "${WM_OPERATOR_CONFIG:-}"
