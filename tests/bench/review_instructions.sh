#!/bin/bash
# Instructions webhook::review() executes over review_bench's mix (6 kinds x ITERATIONS reviews), counted by callgrind
# from entering review() to leaving it. The toggle names the whole signature: a wildcard like 'review*' also matches
# the lambdas inside review(), and entering one of those would turn collection off.
#   tests/bench/review_instructions.sh [ITERATIONS] [BUILD_DIR]      (defaults 1000, build)
set -euo pipefail
cd "$(dirname "$0")/../.."
iterations=${1:-1000}
build=${2:-build}
signature='wm::webhook::review(wm::webhook::Endpoint, std::basic_string_view<char, std::char_traits<char> >, '
signature+='wm::policy::AdmissionState const&, simdjson::dom::parser&)'
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no --toggle-collect="$signature" \
  "$build/tests/bench/review_bench" "$iterations" 2>&1 | sed -n 's/.*Collected : //p' |
  awk -v n="$((iterations * 6))" '{ printf "%d instructions in review(), %d per review\n", $1, $1 / n }'
