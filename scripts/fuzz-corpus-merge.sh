#!/usr/bin/env bash
# Keeps what the last scripts/sanitize-and-fuzz.sh run found: for each target, libFuzzer's -merge=1 adds to
# tests/fuzz/corpus/<target>/ only the inputs that reach coverage the seeds (made from ../shared/corpus and the
# catalog) and the kept corpus do not. The unit tests replay the kept corpus on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
# FUZZ_WORK names another run's directory (seeds-<target>/ and <target>/ inside); targets without a run there are
# skipped.
work=${FUZZ_WORK:-build-sanitize/fuzz}
export ASAN_OPTIONS=detect_leaks=0
merged=0
source scripts/fuzz-targets.sh
for target in "${targets[@]}"; do
  [[ -d $work/$target && -d $work/seeds-$target ]] || continue
  merged=$((merged + 1))
  base=$(mktemp -d)
  cp "$work/seeds-$target"/* "$base/"  # the seeds include the kept corpus
  before=$(ls "$base" | wc -l)
  "build-sanitize/tests/fuzz/fuzz_$target" -merge=1 -max_len=65536 -timeout=10 "$base" "$work/$target" \
    >"$work/merge-$target.log" 2>&1
  added=0
  for f in "$base"/*; do
    if [[ ! -e $work/seeds-$target/$(basename "$f") ]]; then
      cp "$f" "tests/fuzz/corpus/$target/"
      added=$((added + 1))
    fi
  done
  echo "$target: $before seeds, $added inputs added to tests/fuzz/corpus/$target ($(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/merge-$target.log" | tail -1))"
  rm -rf "$base"
done
[[ $merged -gt 0 ]] || { echo "no fuzz run in $work: run scripts/sanitize-and-fuzz.sh first" >&2; exit 1; }
