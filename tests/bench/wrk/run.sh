#!/usr/bin/env bash
# The load benchmark's mix through wrk (Debian's package), against a server this script starts.
#   tests/bench/wrk/run.sh [CONNECTIONS=64] [DURATION=20s] [THREADS=1] [SERVER_THREADS=0 (one per core)]
set -euo pipefail
cd "$(dirname "$0")/../../.."
connections=${1:-64} duration=${2:-20s} threads=${3:-1} server_threads=${4:-0}
command -v wrk >/dev/null || { echo "wrk is not installed: scripts/setup.sh --bench" >&2; exit 1; }
wm=build/cli/workload-map
corpus=../shared/corpus/upstream
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
for f in tests/bench/fixtures/jobset-10k.yaml $corpus/pytorchjob/pytorch_job_mnist_nccl.yaml \
         $corpus/raycluster/ray-cluster.complete.yaml $corpus/leaderworkerset/sample-lws.yaml \
         $corpus/inferenceservice/transformer-collocation.yaml tests/bench/fixtures/deployment.yaml; do
  $wm review-request "$f" --namespace team-a > "$dir/$(basename "$f" .yaml).json"
done
$wm serve --listen 127.0.0.1:0 --log-level error --threads "$server_threads" > "$dir/banner" &
server=$!
for _ in $(seq 50); do grep -q "stop:" "$dir/banner" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'https://127.0.0.1:[0-9]*' "$dir/banner" | head -1)
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s tests/bench/wrk/admission.lua "$url" -- "$dir"
echo "server peak RSS: $(grep VmHWM /proc/$server/status | awk '{print $2, $3}')"
