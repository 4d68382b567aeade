#!/usr/bin/env bash
# The tests that need no control plane, built with clang's AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/build-sanitized.sh), then a short libFuzzer run of each target (scripts/fuzz.sh: FUZZ_SECONDS, default 30).
# An hour of each target: FUZZ_SECONDS=3600 scripts/sanitize-and-fuzz.sh; then scripts/fuzz-corpus-merge.sh keeps
# what the runs found in tests/fuzz/corpus/, minimized.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-sanitized.sh
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-sanitize --output-on-failure --timeout 900 -j "$(nproc)"
scripts/fuzz.sh
