#!/usr/bin/env bash
# Installs what is missing, builds, and shows the mapper at work on the mission's JobSet: its view
# (3 pods, 12 GPUs) and the JSON Patch that puts every pod template under one scheduler and gang.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
wm=build/cli/workload-map
set -x
$wm inspect examples/jobset-12-gpus.yaml
$wm mutate examples/jobset-12-gpus.yaml --set-scheduler kai-scheduler \
  --label kai.scheduler/queue=team-a --label scheduling.x-k8s.io/pod-group=train --root-label kai.scheduler/queue=team-a
