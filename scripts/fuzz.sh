#!/usr/bin/env bash
# A short libFuzzer run of each target (FUZZ_SECONDS, default 30; two at a time, one per core) over build-sanitize/
# (scripts/build-sanitized.sh), seeded from the corpus. A crash, an input that runs longer than FUZZ_TIMEOUT seconds
# (default 2: a second of admission, at the sanitizers' cost), a single allocation over FUZZ_MALLOC_MB (default 64) or
# a process over FUZZ_RSS_MB (default 768, ASan's shadow and a 64 MiB quarantine included) fails the run and leaves
# the input in build-sanitize/fuzz/<target>-<crash|timeout|oom>-*: copy it to
# tests/fuzz/regressions/<target>/ so that every later run replays it. Slowness is a finding: a webhook answers
# within the API server's timeout, whatever the body.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
timeout=${FUZZ_TIMEOUT:-2}
malloc_mb=${FUZZ_MALLOC_MB:-64}
rss_mb=${FUZZ_RSS_MB:-768}
build=build-sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=64 UBSAN_OPTIONS=print_stacktrace=1
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
  (cd "$work" && ../tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout="$timeout" \
     -rss_limit_mb="$rss_mb" -malloc_limit_mb="$malloc_mb" -max_len=65536 -artifact_prefix="$target-" -print_final_stats=1 -dict=catalog.dict \
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
echo "fuzzing: done"
