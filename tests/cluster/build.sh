#!/usr/bin/env bash
# Builds the test control plane into build/cluster/bin/: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and a kubectl of the same release, all from the Go module proxy as pinned by tests/cluster/go.mod;
# KWOK, the fake kubelet behind tests/cluster/nodes.sh (tests/cluster/nodes/go.mod); helm, for the chart's tests
# (tests/cluster/helm/go.mod); the workload operators run
# beside it (tests/cluster/operators/NAME/: JobSet, LeaderWorkerSet, KubeRay, the training-operator) as
# build/cluster/bin/NAME-controller; and the schedulers of the shipped profiles (tests/cluster/schedulers/NAME/,
# each a module of its own whose scheduler.conf names its binaries). Each wrapper module pins the Kubernetes
# libraries its project was released with. Go's module and build caches make a warm rebuild quick; a module's
# binaries are rebuilt only when its go.mod, go.sum or .conf, the Go toolchain or the build's flags (go_flags and
# the ldflags below) change (one stamp per
# module in build/cluster/bin/.stamp-MODULE: Go does not cache linked executables, and relinking takes a minute).
# A scheduler whose module the proxy refuses (KAI) names its source archive in ../shared instead (scheduler.conf's
# `source`): it is unpacked into build/cluster/src/MODULE and built as its own main module, and the archive, not a
# go.mod, is what its stamp covers.
# Linked binaries are also kept under ${XDG_CACHE_HOME:-~/.cache}/workload-map/cluster-bin/ by the same stamp, beside
# Go's own caches, so that a fresh clone on a machine that built them before copies instead of relinking. Modules
# build two at a time (WM_CLUSTER_BUILD_JOBS).
#   tests/cluster/build.sh [--force]
set -euo pipefail
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
out=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
mkdir -p "$out"
out=$(cd "$out" && pwd)

command -v go >/dev/null || { echo "cluster/build.sh: go is not installed" >&2; exit 1; }
release=$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$here/go.mod")

# The release's version, as its own build stamps it: kubectl's skew check and the server's /version read it.
minor=${release#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
control_plane_ldflags="-s -w -X $pkg.gitVersion=$release -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
control_plane_ldflags+=" -X $pkg.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$release"
go_flags=(-trimpath)

# Each module and its binaries, as NAME=PACKAGE: the control plane, KWOK, the operators, the schedulers.
modules=(. nodes helm)
shared=${WM_SHARED_DIR:-$here/../../../shared}
declare -A module_source=()  # module -> its source archive, for a module not on the proxy
declare -A module_binaries=(
  [.]="etcd=go.etcd.io/etcd/server/v3 kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver
       kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
       kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler kubectl=k8s.io/kubernetes/cmd/kubectl"
  [nodes]="kwok=sigs.k8s.io/kwok/cmd/kwok"
  [helm]="helm=helm.sh/helm/v4/cmd/helm"
)
for conf in "$here"/operators/*/operator.conf; do
  module=operators/$(basename "$(dirname "$conf")")
  modules+=("$module")
  module_binaries[$module]="$(basename "$module")-controller=$(source "$conf" && echo "$package")"
done
for conf in "$here"/schedulers/*/scheduler.conf; do
  module=schedulers/$(basename "$(dirname "$conf")")
  modules+=("$module")
  module_binaries[$module]=$(source "$conf" && echo "${binaries[@]}")
  archive=$(source "$conf" && echo "${source_archive:-}")
  [[ -z $archive ]] || module_source[$module]=$shared/$archive
done

cache=${WM_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-map/cluster-bin}
force=${1:-}
tally=$(mktemp -d)
trap 'rm -rf "$tally"' EXIT
start=$SECONDS

# One module: nothing if its stamp matches, a copy from the cache if it was built before, else go build.
# Prints what it did to $tally/module-KEY ("built N" or "copied N").
build_module() {
  local module=$1 dir=$here/$1 key=${1//\//-} stamp kept ldflags binary missing=0
  local archive=${module_source[$module]:-} sources
  if [[ -n $archive ]]; then
    [[ -f $archive ]] || { echo "cluster/build.sh: $module: no source archive $archive" >&2; return 1; }
    sources=("$archive")
  else
    sources=("$dir"/{go.mod,go.sum})
  fi
  stamp=$(cat "${sources[@]}" "$dir"/*.conf <(go version; echo "${go_flags[*]} $control_plane_ldflags") |
    sha256sum | cut -c1-16)
  if [[ $force != --force && -f $out/.stamp-$key && $(cat "$out/.stamp-$key") == "$stamp" ]]; then
    for binary in ${module_binaries[$module]}; do [[ -x $out/${binary%%=*} ]] || missing=1; done
    ((missing)) || return 0
  fi
  kept=$cache/$key-$stamp
  if [[ $force != --force && -f $kept/.complete ]]; then
    for binary in ${module_binaries[$module]}; do
      cp "$kept/${binary%%=*}" "$out/${binary%%=*}.new" && mv "$out/${binary%%=*}.new" "$out/${binary%%=*}"
    done
    echo "$stamp" > "$out/.stamp-$key"
    echo "copied $(wc -w <<< "${module_binaries[$module]}")" > "$tally/module-$key"
    return 0
  fi
  ldflags="-s -w"
  [[ $module == . ]] && ldflags=$control_plane_ldflags
  if [[ -n $archive ]]; then  # its own main module, unpacked afresh
    dir=$(dirname "$out")/src/$key
    rm -rf "$dir" && mkdir -p "$dir"
    tar -xzf "$archive" -C "$dir" --strip-components=1
  fi
  cd "$dir"
  local began=$SECONDS
  for binary in ${module_binaries[$module]}; do
    echo "cluster/build.sh: ${binary%%=*} from ${module/#./the control plane} ($((SECONDS - start)) s)" >&2
    CGO_ENABLED=0 go build "${go_flags[@]}" -ldflags "$ldflags" -o "$out/${binary%%=*}.new" "${binary#*=}"
    mv "$out/${binary%%=*}.new" "$out/${binary%%=*}"
  done
  echo "$stamp" > "$out/.stamp-$key"
  echo "built $(wc -w <<< "${module_binaries[$module]}")" > "$tally/module-$key"
  local name=${key/#./control-plane}
  echo "cluster/build.sh: built ${name#schedulers-} in $((SECONDS - began)) s" >&2
  # Kept for the next clone; older builds of this module go (a cache, not an archive).
  if mkdir -p "$cache" 2>/dev/null; then
    rm -rf "$cache/$key-"*
    mkdir -p "$kept"
    for binary in ${module_binaries[$module]}; do cp "$out/${binary%%=*}" "$kept/"; done
    touch "$kept/.complete"
  fi
}

# Two modules at a time: each build leaves a core idle while it downloads modules or links (a single-threaded
# step of up to a minute per binary), and the other build takes it. Go's caches are safe to share between them.
# The longest builds go first, so that the last one to start is a short one.
jobs_max=${WM_CLUSTER_BUILD_JOBS:-2}
order=(. schedulers/kai schedulers/volcano schedulers/kueue schedulers/coscheduling)
for module in "${modules[@]}"; do [[ " ${order[*]} " == *" $module "* ]] || order+=("$module"); done
declare -A running=()
failed=0
reap() {
  local pid
  wait -n -p pid "${!running[@]}" || { echo "cluster/build.sh: ${running[$pid]} failed" >&2; failed=1; }
  unset "running[$pid]"
}
for module in "${order[@]}"; do
  [[ -n ${module_binaries[$module]:-} ]] || continue
  while ((${#running[@]} >= jobs_max)); do reap; done
  build_module "$module" &
  running[$!]=$module
done
while ((${#running[@]} > 0)); do reap; done
((failed == 0)) || exit 1
built=$(cat "$tally"/* 2>/dev/null | awk '$1 == "built" {n += $2} END {print n + 0}')
copied=$(cat "$tally"/* 2>/dev/null | awk '$1 == "copied" {n += $2} END {print n + 0}')
((built == 0)) || echo "cluster/build.sh: built $built binaries into $out in $((SECONDS - start)) s" >&2
((copied == 0)) || echo "cluster/build.sh: copied $copied binaries from $cache in $((SECONDS - start)) s" >&2

# CRDs of releases whose operators are not run here but whose objects workloads refer to (Kubeflow Trainer's
# TrainJob and runtimes), from the release's module (tests/cluster/crds/go.mod) into build/cluster/crds/, which
# fixture.sh installs beside ../shared/crds.
crds_out=$(dirname "$out")/crds
mkdir -p "$crds_out"
trainer=$(cd "$here/crds" && go mod download github.com/kubeflow/trainer/v2 &&
  go list -m -f '{{.Dir}}' github.com/kubeflow/trainer/v2)
cp "$trainer"/manifests/base/crds/trainer.kubeflow.org_*.yaml "$crds_out/"
chmod u+w "$crds_out"/*.yaml
