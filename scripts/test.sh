#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer and a short run of each fuzzer
# (scripts/sanitize-and-fuzz.sh). --quick stops after the first pass.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
[[ ${1:-} == --quick ]] && exit 0
FUZZ_SECONDS=${FUZZ_SECONDS:-30} scripts/sanitize-and-fuzz.sh
