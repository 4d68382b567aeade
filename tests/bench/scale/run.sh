#!/usr/bin/env bash
# The scale benchmark (scale_bench) at the sizes given, each on a scheduler bed of its own (tests/cluster/fixture.sh
# in a temporary folder, stopped after), so that one size's leftovers never weigh on the next.
#   tests/bench/scale/run.sh [SIZE...]      default: 1000 2000
# Needs the build with the control-plane suites (scripts/build.sh -DWM_CLUSTER_TESTS=ON: build/tests/scale_bench)
# and tests/cluster/build.sh's binaries. Prints each size's figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
export WM_CLUSTER_BIN=${WM_CLUSTER_BIN:-$root/build/cluster/bin}
export WM_CRDS_DIR=${WM_CRDS_DIR:-$root/../shared/crds}
bench=${WM_SCALE_BENCH:-$root/build/tests/scale_bench}
[[ -x $bench ]] || { echo "run.sh: $bench is missing: build the project first" >&2; exit 1; }
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 2000)
for size in "${sizes[@]}"; do
  bed=$(mktemp -d /tmp/wm-scale-XXXXXX)
  trap '"$root/tests/cluster/fixture.sh" down "$bed" >/dev/null 2>&1 || true' EXIT
  # The controller manager's client at 100 requests a second, as Kubernetes' scalability tests run it: the Job
  # controller and the garbage collector keep pace with the storm instead of trailing it by minutes.
  WM_KCM_QPS=100 "$root/tests/cluster/fixture.sh" up "$bed" --lws-gang-scheduling volcano >"$bed.up.log" 2>&1 ||
    { cat "$bed.up.log" >&2; exit 1; }
  # Time for the scheduler and the garbage collector: about 5 pods a workload, some 20 a second each on 2 cores.
  WM_CLUSTER_DIR=$bed "$bench" --workloads "$size" --pods-timeout $((120 + size * 5 / 10)) || status=$?
  "$root/tests/cluster/fixture.sh" down "$bed" >/dev/null 2>&1 || true
  trap - EXIT
  rm -rf "$bed" "$bed.up.log"
  [[ ${status:-0} -eq 0 ]] || exit "$status"
done
