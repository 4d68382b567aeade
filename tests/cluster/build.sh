#!/usr/bin/env bash
# Builds the test control plane into build/cluster/bin/: etcd, kube-apiserver, kube-controller-manager and a
# kubectl of the same release, all from the Go module proxy as pinned by tests/cluster/go.mod, and the workload
# operators run beside it (tests/cluster/operators/NAME/: the JobSet and LeaderWorkerSet controllers, each pinned
# by its own go.mod) as build/cluster/bin/NAME-controller. Go's module and
# build caches make a warm rebuild quick; the binaries are rebuilt only when go.mod, go.sum, the Go toolchain or
# this script change (Go does not cache linked executables, and relinking four large binaries takes a minute).
#   tests/cluster/build.sh [--force]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
mkdir -p "$out"
out=$(cd "$out" && pwd)

command -v go >/dev/null || { echo "cluster/build.sh: go is not installed" >&2; exit 1; }
release=$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$here/go.mod")
tools=(go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver
       k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl)
names=(etcd kube-apiserver kube-controller-manager kubectl)
operators=()
for conf in "$here"/operators/*/operator.conf; do
  operators+=("$(basename "$(dirname "$conf")")")
  names+=("${operators[-1]}-controller")
done

stamp=$(cat "$here/go.mod" "$here/go.sum" "$here"/operators/*/{go.mod,go.sum,operator.conf} "$0" <(go version) |
  sha256sum | cut -c1-16)
if [[ ${1:-} != --force && -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]]; then
  missing=0
  for n in "${names[@]}"; do [[ -x $out/$n ]] || missing=1; done
  ((missing)) || exit 0
fi

# The release's version, as its own build stamps it: kubectl's skew check and the server's /version read it.
minor=${release#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$release -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$release"

echo "cluster/build.sh: building ${names[*]} ($release) into $out" >&2
start=$SECONDS
cd "$here"
build() {  # build NAME PACKAGE LDFLAGS, in the current module
  CGO_ENABLED=0 go build -trimpath -ldflags "$3" -o "$out/$1.new" "$2"
  mv "$out/$1.new" "$out/$1"
}
for i in "${!tools[@]}"; do build "${names[$i]}" "${tools[$i]}" "$ldflags"; done
for operator in "${operators[@]}"; do
  cd "$here/operators/$operator"
  package=$(source operator.conf && echo "$package")
  build "$operator-controller" "$package" "-s -w"
done
echo "$stamp" > "$out/.stamp"
echo "cluster/build.sh: built in $((SECONDS - start)) s" >&2
