#!/usr/bin/env bash
# Cold `gpugrade grade` of a four-variant exercise with each compiler, side by side: the median of 5 runs
# of each, every run with an empty compile cache (fully cold: nvcc/NVRTC and the reference's host build)
# and with only the reference already built (a new submission: what a learner's next grade costs).
#
# usage: bash bench/compile_grade.sh [BIN] [EXERCISE] [SUBMISSION]
#   BIN defaults to build/release/grader/gpugrade; EXERCISE to transpose-tiled; SUBMISSION to its solution.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/grader/gpugrade}
exercise=${2:-transpose-tiled}
submission=${3:-solutions/$exercise/transpose.cu}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Seconds of one grade, with the compile cache in $1.
grade_seconds() {
  local cache=$1 file=$2 compiler=$3 start end
  start=$(date +%s.%N)
  GPUGRADE_CACHE_DIR=$cache "$bin" grade "$exercise" --submission "$file" --backend sim --compiler "$compiler" \
    --format json >/dev/null || [ $? -eq 1 ]
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %22s %30s\n' compiler "fully cold (median s)" "reference built (median s)"
for compiler in nvcc nvrtc; do
  cold=() warm=()
  for run in 1 2 3 4 5; do
    cache=$scratch/$compiler-$run
    cold+=("$(grade_seconds "$cache" "$submission" "$compiler")")
    # The same cache now holds the reference; a submission it has not seen compiles cold.
    fresh=$scratch/$compiler-$run-$(basename "$submission")
    { echo "// run $run"; cat "$submission"; } >"$fresh"
    warm+=("$(grade_seconds "$cache" "$fresh" "$compiler")")
  done
  printf '%-8s %22s %30s\n' "$compiler" "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${warm[@]}" | median)"
done
