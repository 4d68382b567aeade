#!/bin/bash
# The architecture's layers, as the includes have them (docs/architecture.md): each folder includes only the folders
# below it, mapper/'s rooms only the rooms before them, and mapper/ nothing of HTTP. Prints every include that
# breaks a rule; exits 1 if any does.
cd "$(dirname "$0")/.." || exit 2
status=0
# allowed FOLDER ALLOWED...: every project include in FOLDER's sources is in one of the ALLOWED folders, or is one of
# the ALLOWED headers.
allowed() {
  local folder=$1 && shift
  local pattern="" item
  for item in "$@"; do
    if [[ $item == *.h ]]; then pattern+="|${item//./\\.}\"" ; else pattern+="|$item/"; fi
  done
  pattern=${pattern:1}
  local bad
  bad=$(grep -Hn '#include "' "$folder"/*.h "$folder"/*.cpp 2>/dev/null | grep -Ev "#include \"($pattern)")
  if [[ -n $bad ]]; then
    echo "$folder may include only $*:" && echo "$bad"
    status=1
  fi
}
# common/result.h is the one header below everything: standard library only.
result=common/result.h
allowed mapper/json mapper/json $result
allowed mapper/expr mapper/json mapper/expr $result
allowed mapper/catalog mapper/json mapper/expr mapper/catalog $result
allowed mapper/view mapper/json mapper/expr mapper/catalog mapper/view $result
allowed kube kube mapper/json $result
allowed common common mapper/json
allowed webhook webhook common mapper
allowed controllers controllers kube webhook common mapper
# mapper/ knows nothing of HTTP.
if grep -n '#include "' common/result.h; then
  echo "common/result.h must include nothing of the project" && status=1
fi
if grep -rn '#include <boost/beast\|#include <boost/asio\|#include <openssl' mapper; then
  echo "mapper/ includes HTTP or TLS" && status=1
fi
exit $status
