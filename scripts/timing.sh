# Sourced by scripts/test.sh: where a run's time goes, and the budget each part keeps (tests/budget.tsv).
#   timed PART COMMAND...   runs COMMAND, and records PART's seconds in $WM_TIMINGS (one "PART SECONDS" a line)
#   timing_report           prints the parts against their budget, and a warning for each part over it
# PARTs that run beside each other are recorded each with its own wall time: the total is the run's wall time.
WM_TIMINGS=${WM_TIMINGS:-$PWD/build/timings.tsv}
mkdir -p "$(dirname "$WM_TIMINGS")"
: > "$WM_TIMINGS"
timing_began=$SECONDS

timed() {
  local part=$1 began=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "$part $((SECONDS - began))" >> "$WM_TIMINGS"
  return "$status"
}

# The Go bed's modules ("cluster/build.sh: built MODULE in N s") and the suites' times from CTest's JUnit report
# (a test's suite is its name up to the first colon).
timing_from_go_log() {
  sed -n 's|^cluster/build.sh: built \([^ ]*\) in \([0-9]*\) s$|go:\1 \2|p' "$1" >> "$WM_TIMINGS"
}
timing_from_junit() {
  local prefix=$1 report=$2
  [[ -f $report ]] || return 0
  grep -o '<testcase name="[^"]*"[^>]*time="[0-9.]*"' "$report" |
    sed 's/<testcase name="\([^":]*\):[^"]*".*time="\([0-9.]*\)"/\1 \2/' |
    awk -v p="$prefix" '{t[$1] += $NF} END {for (s in t) printf "%s%s %d\n", p, s, t[s] + 0.5}' | sort >> "$WM_TIMINGS"
}

timing_report() {
  local budget=tests/budget.tsv warm=${1:-cold}
  echo "$warm total $((SECONDS - timing_began))" >> "$WM_TIMINGS"
  echo
  echo "where the time went ($warm run; budget: tests/budget.tsv, seconds on 2 cores):"
  awk -v mode="$warm" '
    NR == FNR { if ($0 !~ /^#/ && NF >= 3) { cold[$1] = $2; warmb[$1] = $3 } next }
    {
      part = $1; s = $NF
      if (part == mode) part = "total"
      b = (mode == "warm") ? warmb[part] : cold[part]
      over = (b != "" && b != "-" && s > b) ? "   <-- over its budget of " b " s" : ""
      printf "  %-34s %6d s%s\n", part, s, over
      if (over != "") warned++
    }
    END { if (warned) printf "budget: %d part(s) over their share: pay for what was added (docs/testing.md)\n", warned }
  ' "$budget" "$WM_TIMINGS"
}
