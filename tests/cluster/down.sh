#!/usr/bin/env bash
# Stops everything tests/cluster/up.sh DIR started, by the PIDs it recorded: SIGTERM to each process group,
# then SIGKILL after 15 s. Keeps DIR (logs, state) for reading; idempotent.
#   tests/cluster/down.sh DIR
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
pids=$1/pids
[[ -d $pids ]] || exit 0
# Operators started beside it first, then the controller manager; etcd last: the API server needs etcd until it
# has gone.
others=()
for f in "$pids"/*; do
  name=$(basename "$f")
  case $name in kube-controller-manager | kube-apiserver | etcd | '*') ;; *) others+=("$name") ;; esac
done
for name in "${others[@]}" kube-controller-manager kube-apiserver etcd; do
  [[ -f $pids/$name ]] || continue
  pid=$(cat "$pids/$name")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "down.sh: $name ($pid) ignored SIGTERM; killing it" >&2
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$pids/$name"
done
rmdir "$pids" 2>/dev/null
exit 0
