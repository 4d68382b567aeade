#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer and a short run of each fuzzer
# (scripts/sanitize-and-fuzz.sh). --quick stops after the first pass. The `cluster` tests run against a real
# kube-apiserver, etcd and kube-controller-manager that tests/cluster/build.sh builds from the Go module proxy
# (cached: only the first build is long); its kubectl is the one every test uses.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[[ -x /usr/local/go/bin/go ]] && PATH=$PATH:/usr/local/go/bin
# The Go build (control plane, operators, schedulers; 30 minutes cold on 2 cores) runs beside the C++ build:
# its module downloads and single-threaded links leave a core idle, which the C++ build takes.
tests/cluster/build.sh &
cluster_build=$!
trap 'kill "$cluster_build" 2>/dev/null || true' EXIT
scripts/build.sh
wait "$cluster_build"
trap - EXIT
export PATH=$PWD/build/cluster/bin:$PATH
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
[[ ${1:-} == --quick ]] && exit 0
FUZZ_SECONDS=${FUZZ_SECONDS:-30} scripts/sanitize-and-fuzz.sh
