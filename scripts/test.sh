#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
