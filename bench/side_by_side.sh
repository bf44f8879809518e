#!/bin/bash
# Runs several builds' simulator benchmarks one after another, twice, for figures measured side by side in
# one run: for each DIR, DIR/sim_transpose and then DIR/sim_kernels over the kernels in KERNELS (default the
# source tree's bench/kernels; older builds need the .cu files they were written for).
# Usage: bash bench/side_by_side.sh [--kernels=KERNELS] DIR...
set -euo pipefail
kernels="$(cd "$(dirname "$0")" && pwd)/kernels"
if [[ "${1:-}" == --kernels=* ]]; then
  kernels="${1#--kernels=}"
  shift
fi
if [[ $# -eq 0 ]]; then
  echo "usage: bash bench/side_by_side.sh [--kernels=DIR] BUILD_DIR..." >&2
  exit 2
fi
for dir in "$@"; do
  for program in sim_transpose sim_kernels; do
    if [[ ! -x "$dir/$program" ]]; then
      echo "side_by_side.sh: $dir/$program is not an executable; pass folders that hold a build's" \
        "sim_transpose and sim_kernels (build/release/bench for this tree)" >&2
      exit 2
    fi
  done
done
for round in 1 2; do
  for dir in "$@"; do
    echo "=== round $round: $dir"
    "$dir/sim_transpose" 2>&1 | grep -E "native|alone|checkers"
    "$dir/sim_kernels" --kernels="$kernels" 2>&1 | grep -E "^[a-z_]+ |native|alone|checkers"
  done
done
