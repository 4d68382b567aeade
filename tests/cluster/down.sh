#!/usr/bin/env bash
# Stops everything tests/cluster/up.sh DIR started, by the PIDs it recorded: SIGTERM to each process group,
# then SIGKILL after 15 s. Keeps DIR (logs, state) for reading; idempotent.
#   tests/cluster/down.sh DIR
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
pids=$1/pids
[[ -d $pids ]] || exit 0
# stop NAME...: SIGTERM to each one's process group at once, then SIGKILL to those still there after 15 s in all.
stop() {
  local name pid waiting
  local -A started=()
  for name in "$@"; do
    [[ -f $pids/$name ]] || continue
    pid=$(cat "$pids/$name")
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    started[$name]=$pid
  done
  for _ in $(seq 150); do
    waiting=0
    for pid in "${started[@]}"; do kill -0 "$pid" 2>/dev/null && waiting=1; done
    ((waiting)) || break
    sleep 0.1
  done
  for name in "${!started[@]}"; do
    pid=${started[$name]}
    if kill -0 "$pid" 2>/dev/null; then
      echo "down.sh: $name ($pid) ignored SIGTERM; killing it" >&2
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$pids/$name"
  done
}
# The operators, schedulers and nodes started beside it first, all at once (one after the other, each taking its
# graceful seconds, the schedulers' bed took 34 s to stop); then the controller manager; etcd last: the API server
# needs etcd until it has gone.
others=()
for f in "$pids"/*; do
  name=$(basename "$f")
  case $name in kube-controller-manager | kube-apiserver | etcd | '*') ;; *) others+=("$name") ;; esac
done
stop "${others[@]}"
stop kube-controller-manager
stop kube-apiserver
stop etcd
rmdir "$pids" 2>/dev/null
exit 0
