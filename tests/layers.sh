#!/bin/bash
# The architecture's layers, as the includes have them (docs/architecture.md): each folder includes only the folders
# below it, mapper/'s rooms only the rooms before them, and mapper/ nothing of HTTP. Prints every include that
# breaks a rule; exits 1 if any does.
cd "$(dirname "$0")/.." || exit 2
status=0
# allowed FOLDER PATTERN...: every project include in FOLDER's sources matches one of the patterns.
allowed() {
  local folder=$1 && shift
  local pattern
  pattern=$(printf '|%s' "$@") && pattern=${pattern:1}
  local bad
  bad=$(grep -Hn '#include "' "$folder"/*.h "$folder"/*.cpp 2>/dev/null | grep -Ev "#include \"($pattern)/")
  if [[ -n $bad ]]; then
    echo "$folder may include only $*:" && echo "$bad"
    status=1
  fi
}
allowed mapper/json mapper/json
allowed mapper/expr mapper/json mapper/expr
allowed mapper/catalog mapper/json mapper/expr mapper/catalog
allowed mapper/view mapper/json mapper/expr mapper/catalog mapper/view
allowed kube kube mapper/json
allowed common common mapper/json
allowed webhook webhook common mapper
allowed controllers controllers kube webhook common mapper
# mapper/ knows nothing of HTTP.
if grep -rn '#include <boost/beast\|#include <boost/asio\|#include <openssl' mapper; then
  echo "mapper/ includes HTTP or TLS" && status=1
fi
exit $status
