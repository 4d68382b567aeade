#!/usr/bin/env bash
# The CTest fixture of the `cluster` tests.
#   fixture.sh up DIR     a fresh control plane in DIR (up.sh) with every upstream CRD of ../shared/crds installed
#                         as a user installs them (server-side apply: most are over client-side apply's size limit),
#                         and the real JobSet and LeaderWorkerSet controllers (operator.sh)
#   fixture.sh up DIR --lws-gang-scheduling volcano
#                         the same, with LeaderWorkerSet's own gang scheduling on (its Configuration's
#                         gangSchedulingManagement.schedulerProvider), as a cluster running Volcano sets it
#   fixture.sh down DIR   stops it (down.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -eq 2 || ($# -eq 4 && $3 == --lws-gang-scheduling) ]] ||
  { echo "usage: $0 up|down DIR [--lws-gang-scheduling PROVIDER]" >&2; exit 2; }
dir=$2
lws_provider=${4:-}
case $1 in
  down) exec "$here/down.sh" "$dir" ;;
  up) ;;
  *) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac
crds=${WM_CRDS_DIR:-$here/../../../shared/crds}
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
"$here/down.sh" "$dir"
rm -rf "$dir"
"$here/up.sh" "$dir"
kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
# kubectl wait errs on a CRD so new that it has no conditions yet: try again.
established() {
  for _ in 1 2 3 4 5; do
    kubectl wait --for condition=established --timeout 60s crd --all && return 0
    sleep 1
  done
  return 1
}
# ../shared/crds may hold two definitions of one CRD, one of them named <group>_<plural>.<version>.yaml (MPIJob: the
# training-operator's v1 beside mpi-operator's v2beta1, which its README says to install one or the other of): the
# plain name is installed (the corpus MPIJobs are v2beta1), as a second apply of the other would drop the first's
# stored version and be refused.
sources=()
for f in "$crds"/*.yaml; do
  base=${f%.*.yaml}
  [[ $base != "${f%.yaml}" && -f $base.yaml ]] && continue
  sources+=(-f "$f")
done
# And those build.sh takes from releases on the Go module proxy (build/cluster/crds: Kubeflow Trainer's).
built_crds=${WM_BUILT_CRDS_DIR:-$(dirname "$bin")/crds}
[[ -d $built_crds ]] && sources+=(-f "$built_crds")
# And the upstream CRDs this repository keeps beside them (tests/fixtures/crds: Argo Workflows').
for f in "$here"/../fixtures/crds/*.yaml; do sources+=(-f "$f"); done
if ! kubectl apply --server-side "${sources[@]}" >"$dir/logs/crds.log" 2>&1 || ! established >>"$dir/logs/crds.log" 2>&1; then
  cat "$dir/logs/crds.log" >&2
  "$here/down.sh" "$dir"
  exit 1
fi
echo "fixture.sh: $(kubectl get crd --no-headers | wc -l) CRDs installed from $crds, $built_crds and tests/fixtures/crds" >&2
"$here/operator.sh" jobset "$dir" || { "$here/down.sh" "$dir"; exit 1; }
lws_config=""
[[ -n $lws_provider ]] && lws_config="gangSchedulingManagement: {schedulerProvider: $lws_provider}"
WM_OPERATOR_CONFIG=$lws_config "$here/operator.sh" lws "$dir" || { "$here/down.sh" "$dir"; exit 1; }
