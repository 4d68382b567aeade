#!/usr/bin/env bash
# Installs what is missing, builds, and runs the webhook on https://127.0.0.1:8443 with the built-in
# catalog and policy and a self-signed certificate it makes; it prints how to call it. Ctrl-C stops.
#   scripts/run.sh [serve options]      (workload-map serve --help)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/cli/workload-map serve "$@"
