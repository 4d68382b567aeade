#!/usr/bin/env bash
# Installs everything workload-map needs to build and test, from Debian 12's packages. Idempotent.
#   --fuzz     clang, for libFuzzer and the sanitized build
#   --bench    the public load tool (wrk) and the profilers used for the benchmark figures
#   --cluster  checks that Go is there for the control-plane tests (tests/cluster/build.sh); nothing else needs Go
set -euo pipefail
fuzz=false bench=false cluster=false
for arg in "$@"; do
  case $arg in
    --fuzz) fuzz=true ;;
    --bench) bench=true ;;
    --cluster) cluster=true ;;
    *) echo "setup: unknown option $arg (--fuzz, --bench, --cluster)" >&2 && exit 2 ;;
  esac
done

packages=(
  g++ cmake ninja-build pkg-config ccache     # toolchain
  libboost-dev libboost-system-dev libssl-dev # HTTP + TLS (Boost.Beast/Asio, OpenSSL)
  libyaml-cpp-dev libsimdjson-dev             # YAML definitions, JSON objects
  libjq-dev libonig-dev                       # jq expressions
  libcli11-dev                                # the command line
  catch2 clang-format                         # tests, and the format the house check holds to
  openssl jq curl ca-certificates             # certificates, test helpers
  mmdebstrap umoci                            # the OCI image without a registry (scripts/image.sh)
)

if $bench; then packages+=(wrk valgrind); fi
if $fuzz; then packages+=(clang libclang-rt-dev); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

$cluster || exit 0
# The cluster tests build the real control plane (tests/cluster/) with Go: the version its go.mod names or newer.
# Debian 12's golang packages are older, so Go comes with the machine (polyglot image: /usr/local/go).
[[ -x /usr/local/go/bin/go ]] && PATH=$PATH:/usr/local/go/bin
need_go=$(awk '$1 == "go" {print $2; exit}' "$(dirname "$0")/../tests/cluster/go.mod")
if ! command -v go >/dev/null; then
  echo "setup: go is not installed; the cluster tests need Go $need_go or newer (tests/cluster/go.mod)" >&2
  exit 1
fi
have_go=$(go env GOVERSION | sed 's/^go//')
if [[ $(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -n1) != "$need_go" ]]; then
  echo "setup: go $have_go is older than $need_go, which tests/cluster/go.mod needs" >&2
  exit 1
fi
