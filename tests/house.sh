#!/usr/bin/env bash
# The house's sizes (issue 48): no source outside tests/ over 600 lines, no function over 60 lines but the native
# evaluator's dispatch (mapper/expr/native_evaluator.cpp's eval), and every tracked source clang-formatted (when
# clang-format is installed). A function is counted from a definition's opening line at namespace or class level to
# its closing brace at the same indent, as clang-format lays them out. Prints each breach; exits 1 if any.
cd "$(dirname "$0")/.." || exit 2
status=0
mapfile -t sources < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' | grep -v '^tests/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
for f in "${sources[@]}"; do
  lines=$(wc -l <"$f")
  ((lines > 600)) && echo "$f: $lines lines (at most 600)" && status=1
done
awk -v limit=60 '
  FNR == 1 { open = 0; pending = 0 }
  open {
    if ($0 == indent "}") {
      open = 0; n = FNR - start + 1
      if (n > limit && !(FILENAME ~ /native_evaluator\.cpp$/ && head ~ /bool eval\(/))
        { printf "%s:%d: a function of %d lines (at most %d): %s\n", FILENAME, start, n, limit, head; bad = 1 }
    }
    next
  }
  pending {
    if ($0 ~ /[)]( const)?( noexcept)?( override)?( -> [^ ]+)? [{]$/ || $0 ~ /^ *: .*[{]$/ || $0 ~ /[)] [{]$/) { open = 1; pending = 0; next }
    if ($0 ~ /;$/ || $0 ~ /^ *[{}]/) pending = 0
    next
  }
  /^( |  )?[A-Za-z_~].*[(]/ && !/^ *(if|for|while|switch|else|do|return|namespace|struct|class|enum|union|using|typedef|template)\b/ && !/^[^(]* = / && !/;$/ {
    start = FNR; head = $0; indent = $0; sub(/[^ ].*/, "", indent)
    if ($0 ~ /[{]$/) open = 1; else pending = 1
  }
  END { exit bad }
' "${sources[@]}" || status=1
if command -v clang-format >/dev/null; then
  scripts/format.sh --check || status=1
fi
exit "$status"
