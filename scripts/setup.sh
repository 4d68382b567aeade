#!/usr/bin/env bash
# Installs everything workload-map needs to build and test, from Debian 12's packages. Idempotent.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config ccache     # toolchain
  libboost-dev libboost-system-dev libssl-dev # HTTP + TLS (Boost.Beast/Asio, OpenSSL)
  libyaml-cpp-dev libsimdjson-dev             # YAML definitions, JSON objects
  libjq-dev libonig-dev                       # jq expressions
  libcli11-dev                                # the command line
  catch2                                      # tests
  openssl jq curl ca-certificates             # certificates, test helpers
  mmdebstrap umoci                            # the OCI image without a registry (scripts/image.sh)
)

# --bench adds the public load tool (wrk) and the profilers used for the benchmark figures.
if [[ ${1:-} == --bench ]]; then packages+=(wrk valgrind); fi
# --fuzz adds clang, for libFuzzer and the sanitizer build.
if [[ ${1:-} == --fuzz ]]; then packages+=(clang libclang-rt-dev); fi

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
