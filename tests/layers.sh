#!/bin/bash
# The architecture's layers, as the includes have them (docs/architecture.md): each folder includes only itself and
# the folders below it, mapper/'s rooms only the rooms before them, and nothing below webhook/ anything of HTTP.
# Prints every include that breaks a rule; exits 1 if any does. No exceptions: a header that two layers need belongs
# to the lower one. The libraries' CMake links are checked the same way.
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
allowed base base/result.h base/file_watch.h
allowed base/json base/json base/result.h
allowed base/yaml base/yaml base/result.h
allowed mapper/expr base mapper/expr
allowed mapper/catalog base mapper/expr mapper/catalog
allowed mapper/view base mapper/expr mapper/catalog mapper/view
allowed telemetry telemetry base
allowed kube kube base
allowed policy policy telemetry mapper base
allowed webhook webhook policy telemetry mapper base
allowed controllers controllers kube live policy telemetry mapper base
allowed live live policy telemetry mapper base
allowed cli cli controllers live webhook kube policy telemetry mapper base
# Below webhook/ and kube/, nothing of HTTP or TLS.
if grep -rn '#include <boost/beast\|#include <boost/asio\|#include <openssl' base mapper telemetry policy live; then
  echo "base/, mapper/, telemetry/ or policy/ includes HTTP or TLS" && status=1
fi
# linked FOLDER ALLOWED...: the project libraries FOLDER's library links are among the ALLOWED ones.
linked() {
  local folder=$1 && shift
  local links lib
  links=$(tr '\n' ' ' <"$folder/CMakeLists.txt" | grep -o "target_link_libraries($folder [^)]*)" |
    grep -ow 'base\|mapper\|telemetry\|policy\|webhook\|kube\|controllers\|live' | grep -vx "$folder")
  for lib in $links; do
    if [[ " $* " != *" $lib "* ]]; then
      echo "$folder/CMakeLists.txt links $lib; it may link only $*" && status=1
    fi
  done
}
linked base
linked mapper base
linked telemetry base
linked kube base
linked policy telemetry mapper base
linked webhook policy telemetry mapper base
linked controllers kube live policy telemetry mapper base
linked live policy telemetry mapper base
# docs/architecture.md names every source file outside tests/.
for source in $(find base cli telemetry controllers kube live mapper policy webhook -name '*.cpp' | sort); do
  if ! grep -q "\`$source\`" docs/architecture.md; then
    echo "docs/architecture.md does not name $source" && status=1
  fi
done
exit $status
