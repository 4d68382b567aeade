#!/usr/bin/env bash
# The whole test suite again, built with clang's AddressSanitizer and UndefinedBehaviorSanitizer,
# then a short libFuzzer run of each target (FUZZ_SECONDS, default 30) seeded from the corpus.
# A crash fails the run and leaves the input in build-sanitize/fuzz/<target>-crash-*: copy it to
# tests/fuzz/regressions/<admission|definitions|native_vs_jq|policy>/ so that every later run replays it.
# An hour of each target: FUZZ_SECONDS=3600 scripts/sanitize-and-fuzz.sh; then scripts/fuzz-corpus-merge.sh keeps
# what the runs found in tests/fuzz/corpus/, minimized.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz
seconds=${FUZZ_SECONDS:-30}
build=build-sanitize
# ccache, beside Go's caches: a fresh clone on a machine that built before compiles only what changed (paths
# relative to the clone, so that another clone's objects are hits too).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B $build -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWM_SANITIZE=ON -DWM_FUZZ=ON -DWM_CLUSTER_TESTS=OFF "${launcher[@]}" >/dev/null
cmake --build $build --parallel "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir $build --output-on-failure --timeout 900 -j "$(nproc)"

work=$build/fuzz
source scripts/fuzz-targets.sh
rm -rf "$work"
for target in "${targets[@]}"; do mkdir -p "$work/seeds-$target" "$work/$target"; done
for f in ../shared/corpus/upstream/*/*.yaml tests/fixtures/upstream/*/*.yaml examples/*.yaml; do
  $build/cli/workload-map review-request "$f" > "$work/seeds-admission/$(basename "$(dirname "$f")")-$(basename "$f").json" 2>/dev/null || true
done
cp tests/fuzz/regressions/admission/* "$work/seeds-admission/"
cp definitions/*.yaml tests/fixtures/broken-definitions/*.yaml tests/fuzz/regressions/definitions/* "$work/seeds-definitions/"
# The differential target: each native expression of the catalog with a corpus object.
mkdir -p "$work/objects"
for review in "$work"/seeds-admission/*.json; do
  jq -c '.request.object // empty' "$review" > "$work/objects/$(basename "$review")" 2>/dev/null || true
done
$build/tests/make_native_vs_jq_seeds "$work/seeds-native_vs_jq" "$work"/objects/*.json
for target in native_vs_jq policy; do
  if [[ -d tests/fuzz/regressions/$target ]]; then cp tests/fuzz/regressions/$target/* "$work/seeds-$target/"; fi
done
cp manifests/base/policy.yaml "$work/seeds-policy/"
# The corpus kept in the tree (what earlier runs found, minimized), and a dictionary of the keys the code reads.
for target in "${targets[@]}"; do cp tests/fuzz/corpus/$target/* "$work/seeds-$target/"; done
tests/fuzz/make_dictionary.sh > "$work/catalog.dict"
# One fuzzer per core at a time: each is single-threaded.
fuzz_one() {
  local target=$1
  (cd "$work" && ../tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$target-" -print_final_stats=1 -dict=catalog.dict \
     "$target" "seeds-$target" > "$target.log" 2>&1 || true)
  echo "fuzzing $target for ${seconds}s"
  grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|crash|Done" "$work/$target.log" || true
}
running=0
for target in "${targets[@]}"; do
  if (( running >= $(nproc) )); then wait -n; running=$((running - 1)); fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait
for target in "${targets[@]}"; do
  if ls "$work/$target-"* >/dev/null 2>&1; then
    echo "fuzz_$target found a crash: $(ls "$work/$target-"*)" >&2
    exit 1
  fi
done
echo "sanitized tests and fuzzing: done"
