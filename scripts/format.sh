#!/usr/bin/env bash
# clang-format (the repository's .clang-format, Debian 12's clang-format 14) over the C++ sources.
#   scripts/format.sh            formats the sources changed since HEAD (staged, unstaged and new)
#   scripts/format.sh --all      formats every tracked source
#   scripts/format.sh --check    lists every tracked source clang-format would change; exits 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (scripts/setup.sh)" >&2; exit 2; }
case ${1:-} in
  --check)
    mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h')
    bad=$(clang-format --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: .*/\1/p' | sort -u)
    [[ -z $bad ]] && exit 0
    echo "not clang-formatted (scripts/format.sh formats them):" && echo "$bad"
    exit 1
    ;;
  --all) mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h') ;;
  *) mapfile -t files < <({ git diff --name-only HEAD; git ls-files --others --exclude-standard; } |
       grep -E '\.(cpp|h)$' | sort -u | while read -r f; do [[ -f $f ]] && echo "$f"; done) ;;
esac
((${#files[@]})) && clang-format -i "${files[@]}"
echo "format.sh: ${#files[@]} files"
