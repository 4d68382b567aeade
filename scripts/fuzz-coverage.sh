#!/usr/bin/env bash
# Line coverage of base/, mapper/, policy/, webhook/ and kube/ reached by the fuzz inputs: the seeds every fuzz run starts from (the
# catalog, the policy, AdmissionReviews of ../shared/corpus), the kept corpus and the regression inputs, replayed
# through the fuzz targets' entry points in a clang build with source-based coverage. Prints llvm-cov's report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz
build=build-coverage
cmake -S . -B $build -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DWM_CLUSTER_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" \
  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >/dev/null
source scripts/fuzz-targets.sh
cmake --build $build --parallel "$(nproc)" --target workload-map make_native_vs_jq_seeds \
  $(printf 'replay_%s ' "${targets[@]}")
work=$build/fuzz-coverage
rm -rf "$work" && mkdir -p "$work/seeds-admission" "$work/seeds-native_vs_jq" "$work/objects" "$work/profiles"
for f in ../shared/corpus/upstream/*/*.yaml examples/*.yaml; do
  name="$(basename "$(dirname "$f")")-$(basename "$f").json"
  $build/cli/workload-map review-request "$f" >"$work/seeds-admission/$name" 2>/dev/null || true
  jq -c '.request.object // empty' "$work/seeds-admission/$name" >"$work/objects/$name" 2>/dev/null || true
done
LLVM_PROFILE_FILE=/dev/null $build/tests/make_native_vs_jq_seeds "$work/seeds-native_vs_jq" "$work"/objects/*.json \
  >/dev/null
declare -A seeds=(
  [admission]="$work/seeds-admission"
  [definitions]="definitions tests/fixtures/broken-definitions"
  [native_vs_jq]="$work/seeds-native_vs_jq"
  [policy]="manifests/base/policy.yaml"
)
objects=()
for target in "${targets[@]}"; do
  # shellcheck disable=SC2086
  LLVM_PROFILE_FILE="$work/profiles/$target-%p.profraw" $build/tests/replay_$target ${seeds[$target]:-} \
    tests/fuzz/corpus/$target tests/fuzz/regressions/$target | sed "s/^/$target: /"
  objects+=(-object "$build/tests/replay_$target")
done
llvm-profdata merge -sparse "$work"/profiles/*.profraw -o "$work/replay.profdata"
llvm-cov report "${objects[@]:1}" -instr-profile="$work/replay.profdata" \
  -ignore-filename-regex='(tests|cli|usr|build-coverage)/' "$PWD/base" "$PWD/mapper" "$PWD/policy" "$PWD/webhook" "$PWD/kube"
