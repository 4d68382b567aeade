# Sourced by the fuzz scripts: `targets`, the fuzz targets of tests/fuzz/targets.txt (comments left out).
mapfile -t targets < <(grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/../tests/fuzz/targets.txt")
