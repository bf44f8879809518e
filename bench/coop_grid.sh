#!/usr/bin/env bash
# The cost of a cooperative launch on the simulator as its grid grows: tests/data/exercises/cooperative's
# grid-sum (every block's partial, a grid sync, block 0 adds them) at one-warp blocks and n = 200,000, graded
# at 1,024, 2,048 and 4,224 blocks (the last is the largest grid of one-warp blocks an H200 holds at once).
# Prints, per grid, the verdict, the wall time, the user CPU and the peak resident memory of `gpugrade grade`,
# with the compile and the reference already in the cache (a first, untimed grade fills it).
#
# usage: bash bench/coop_grid.sh [BIN]   (default: build/release/grader/gpugrade)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/grader/gpugrade}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/course/exercises"
cp -r tests/data/exercises/cooperative/grid-sum "$scratch/course/exercises/"
yaml="$scratch/course/exercises/grid-sum/exercise.yaml"
for blocks in 1024 2048 4224; do
  python3 - "$yaml" "$blocks" <<'PY'
import re, sys
path, blocks = sys.argv[1], sys.argv[2]
text = open(path).read()
text = re.sub(r"variants:\n(  - .*\n)+", f"variants:\n  - {{defines: {{BLOCK: 32, BLOCKS: {blocks}}}, block: [BLOCK]}}\n", text)
text = re.sub(r"sizes:\n(  - .*\n)+", "sizes:\n  - {n: 200000}\n", text)
open(path, "w").write(text)
PY
  run=("$bin" --root "$scratch/course" grade grid-sum --no-last-grade
       --submission "$scratch/course/exercises/grid-sum/grid_sum.cu")
  GPUGRADE_CACHE_DIR=$scratch/cache "${run[@]}" > /dev/null 2>&1 || true
  verdict=$(GPUGRADE_CACHE_DIR=$scratch/cache /usr/bin/time -f "%e %U %M" -o "$scratch/time" "${run[@]}" 2>/dev/null |
            grep -o 'PASS\|FAIL' | head -1 || true)
  read -r wall user rss < <(tail -n 1 "$scratch/time")
  echo "grid-sum, $blocks blocks of 32 threads: ${verdict:-?}, $wall s wall, $user s user CPU, $((rss / 1024)) MB peak"
done
