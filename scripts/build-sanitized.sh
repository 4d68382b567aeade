#!/usr/bin/env bash
# Configures and builds build-sanitize/: clang with AddressSanitizer and UndefinedBehaviorSanitizer, libFuzzer's
# coverage on every source and the fuzz targets, the tests that need no control plane (those run here, once). Line
# tables only, not full debug information: enough for the sanitizers' stack traces, and a third less to compile and
# link. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz
# ccache, beside Go's caches: a fresh clone on a machine that built before compiles only what changed (paths
# relative to the clone, so that another clone's objects are hits too).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
  -DWM_SANITIZE=ON -DWM_FUZZ=ON -DWM_CLUSTER_TESTS=OFF "${launcher[@]}" "$@" >/dev/null
cmake --build build-sanitize --parallel "$(nproc)"
