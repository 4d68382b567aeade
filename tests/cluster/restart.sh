#!/usr/bin/env bash
# Stops one process of the control plane of tests/cluster/up.sh DIR (etcd, kube-apiserver, an operator...) and
# starts it again with the command it was started with, its log continued: a fault for the tests to survive.
#   tests/cluster/restart.sh DIR NAME [--kill] [--down SECONDS]
# --kill: SIGKILL, as a crash or the OOM killer ends it (default: SIGTERM, as a rolling restart does, waiting for
# it to exit, and SIGKILL after 60 s). --down: how long it stays gone (default 0). Exits once the API server's /readyz answers again (a
# restarted etcd or API server is back), at most 120 s later.
set -euo pipefail
usage() { echo "usage: $0 DIR NAME [--kill] [--down SECONDS]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
dir=$(cd "$1" && pwd)
name=$2
shift 2
signal=TERM down=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --kill) signal=KILL; shift ;;
    --down) [[ $# -ge 2 ]] || usage; down=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -f $dir/pids/$name && -f $dir/commands/$name ]] || { echo "restart.sh: no $name in $dir" >&2; exit 1; }
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
pid=$(cat "$dir/pids/$name")
kill -"$signal" -- "-$pid" 2>/dev/null || kill -"$signal" "$pid" 2>/dev/null || true
# kube-apiserver takes about 35 s to drain after SIGTERM here; past 60 s it is killed, as the kubelet kills a pod
# whose grace period ran out.
for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  echo "restart.sh: $name ($pid) still runs 60 s after SIG$signal: SIGKILL" >&2
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
echo "--- restart.sh: SIG$signal at $(date -u +%FT%TZ), down ${down}s" >> "$dir/logs/$name.log"
sleep "$down"
eval "command=($(cat "$dir/commands/$name"))"
start "$dir" "$name" "${command[@]}"
deadline=$((SECONDS + 120))
until "$bin/kubectl" --kubeconfig "$dir/kubeconfig" get --raw /readyz >/dev/null 2>&1; do
  kill -0 "$(cat "$dir/pids/$name")" 2>/dev/null || { echo "restart.sh: $name exited" >&2; tail -n 20 "$dir/logs/$name.log" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "restart.sh: the API server is not ready 120 s after $name restarted" >&2; exit 1; }
  sleep 0.5
done
echo "restart.sh: $name restarted (SIG$signal, down ${down}s)" >&2
