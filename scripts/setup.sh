#!/usr/bin/env bash
# Installs everything workload-map needs to build and test, from Debian 12's packages. Idempotent.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config            # toolchain
  libboost-dev libboost-system-dev libssl-dev # HTTP + TLS (Boost.Beast/Asio, OpenSSL)
  libyaml-cpp-dev libsimdjson-dev             # YAML definitions, JSON objects
  libjq-dev libonig-dev                       # jq expressions
  catch2                                      # tests
  openssl jq curl ca-certificates             # certificates, test helpers
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

# The end-to-end tests check patches with kubectl's JSON Patch (the API server's own library).
if ! command -v kubectl >/dev/null; then
  echo "setup: kubectl not found; trying the package manager" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q kubectl >/dev/null 2>&1 ||
    echo "setup: kubectl is not installable here; the tests that need it will be reported as skipped" >&2
fi
