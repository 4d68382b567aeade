#!/usr/bin/env bash
# Builds workload-map's OCI image without a registry or a container engine, from Debian 12's packages:
#   scripts/image.sh OUT [TAG]      (default TAG: the release in CMakeLists.txt; needs root for mmdebstrap)
# OUT becomes an OCI image layout (load it with `skopeo copy oci:OUT:TAG docker-daemon:workload-map:TAG`, or
# `podman load`). The root filesystem holds only the runtime libraries the binary links (found with ldd, installed
# with dpkg, so that scanners read /var/lib/dpkg/status), the binary at /usr/local/bin/workload-map and a non-root
# user 65532, with the org.opencontainers.image.* labels. Builds build/cli/workload-map first if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: $0 OUT [TAG]" >&2; exit 2; }
out=$1
version=$(sed -n 's/^project(workload_map VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
tag=${2:-$version}
binary=build/cli/workload-map
[[ -x $binary ]] || scripts/build.sh >/dev/null
for tool in mmdebstrap umoci; do
  command -v $tool >/dev/null || { echo "$0: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done

# The packages that hold the libraries the binary links (/lib is /usr/lib on Debian 12: ask dpkg for both).
packages=()
for lib in $(ldd "$binary" | awk '$3 ~ /^\// {print $3}'); do
  real=$(readlink -f "$lib")
  owner=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null) ||
    { echo "$0: no package holds $lib" >&2; exit 1; }
  packages+=("${owner%%:*}")
done
include=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, -)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
# custom and chrootless: only these packages and what they depend on, installed by the machine's dpkg into the root
# (so that its database is there) without dpkg, apt or a shell inside; the hooks add the binary and the user, and
# drop what a server never reads.
mmdebstrap --quiet --mode=chrootless --variant=custom --include="base-files,base-passwd,netbase,tzdata,$include" \
  --customize-hook='mkdir -p "$1/usr/local/bin" "$1/tmp" && chmod 1777 "$1/tmp"' \
  --customize-hook="copy-in $binary /usr/local/bin" \
  --customize-hook='echo "nonroot:x:65532:65532:workload-map:/nonexistent:/usr/sbin/nologin" >> "$1/etc/passwd"' \
  --customize-hook='echo "nonroot:x:65532:" >> "$1/etc/group"' \
  --customize-hook='rm -rf "$1/usr/share/doc" "$1/usr/share/man" "$1/usr/share/info" "$1/var/cache/apt" "$1/var/lib/apt/lists"' \
  bookworm "$work/rootfs.tar" >&2

rm -rf "$out"
umoci init --layout "$out"
umoci new --image "$out:$tag"
umoci raw add-layer --image "$out:$tag" "$work/rootfs.tar"
umoci config --image "$out:$tag" \
  --config.user 65532:65532 \
  --config.entrypoint /usr/local/bin/workload-map --config.cmd serve \
  --config.exposedports 8443/tcp --config.exposedports 8080/tcp \
  --config.label org.opencontainers.image.title=workload-map \
  --config.label "org.opencontainers.image.description=Kubernetes admission webhook for distributed AI workloads" \
  --config.label org.opencontainers.image.version="$version" \
  --config.label org.opencontainers.image.revision="$revision" \
  --config.label org.opencontainers.image.licenses=Apache-2.0 \
  --config.label org.opencontainers.image.base.name=debian:bookworm \
  --config.label org.opencontainers.image.created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)" \
  --history.created_by "scripts/image.sh (mmdebstrap: $include)"
umoci gc --layout "$out"
echo "image.sh: $out:$tag ($(du -sh "$out" | cut -f1)), packages: $include" >&2
