#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, then a short run of each fuzzer,
# and prints where the time went against tests/budget.tsv.
#
# Two C++ builds, each test built and run once: build-sanitize/ (clang, ASan + UBSan, libFuzzer's coverage) runs every
# test that needs no control plane, and build/ (Release, what is shipped) the control-plane suites and the tests that
# must run unsanitized; both beside the Go build of the control plane, operators and schedulers (tests/cluster/build.sh,
# 30 minutes cold on 2 cores, cached after). One CTest run over both build trees (build-all/), so that the suites share
# the cores as CTest schedules them. --quick skips fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/timing.sh
timed setup scripts/setup.sh --fuzz --cluster
[[ -x /usr/local/go/bin/go ]] && PATH=$PATH:/usr/local/go/bin

# The Go build's module downloads and single-threaded links leave a core idle, which the C++ builds take.
go_log=build/go-build.log
(timed go-build tests/cluster/build.sh 2> >(tee "$go_log" >&2)) &
cluster_build=$!
trap 'kill "$cluster_build" 2>/dev/null || true' EXIT
timed build-release scripts/build.sh -DWM_LOCAL_TESTS=OFF -DWM_CLUSTER_TESTS=ON
timed build-sanitized scripts/build-sanitized.sh
timed go-build-wait wait "$cluster_build"
trap - EXIT
timing_from_go_log "$go_log"

# One CTest over both trees: its test list is the two trees' lists, its -j and resource locks span both.
mkdir -p build-all
printf 'subdirs("%s" "%s")\n' "$PWD/build" "$PWD/build-sanitize" > build-all/CTestTestfile.cmake
export PATH=$PWD/build/cluster/bin:$PATH
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
status=0
timed tests ctest --test-dir build-all --output-on-failure --timeout 900 -j "$(nproc)" \
  --output-junit "$PWD/build/ctest-junit.xml" || status=$?
timing_from_junit "suite:" build/ctest-junit.xml
if ((status == 0)) && [[ ${1:-} != --quick ]]; then
  timed fuzz scripts/fuzz.sh || status=$?
fi
# Cold when the Go bed had to be compiled (no binary kept from an earlier build): the budget's first column.
warm=warm
grep -q "cluster/build.sh: built [0-9]* binaries" "$go_log" && warm=cold
timing_report "$warm"
# CTest's count as the run's last line (its own summary is above the fuzzing and the timings).
if [[ -f build/ctest-junit.xml ]]; then
  suite=$(tr '\n' ' ' < build/ctest-junit.xml | grep -o '<testsuite [^>]*>' | head -n1)
  tests=$(sed -n 's/.*[[:space:]]tests="\([0-9]*\)".*/\1/p' <<< "$suite")
  failures=$(sed -n 's/.*[[:space:]]failures="\([0-9]*\)".*/\1/p' <<< "$suite")
  echo "ctest: $((${tests:-0} - ${failures:-0})) passed, ${failures:-0} failed"
fi
exit "$status"
