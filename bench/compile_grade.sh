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

# "wall cpu" seconds of one grade with the compile cache in $1; cpu is user + system time of gpugrade and
# everything it started (the compile worker, nvcc, the host compiler), which a loaded machine does not inflate.
grade_seconds() {
  local cache=$1 file=$2 compiler=$3 TIMEFORMAT='%R %U %S'
  { time GPUGRADE_CACHE_DIR=$cache "$bin" grade "$exercise" --submission "$file" --backend sim \
      --compiler "$compiler" --format json >/dev/null 2>&1 || [ $? -eq 1 ]; } 2>&1 | awk '{printf "%s %.3f\n", $1, $2 + $3}'
}

# The median of column $1 of the lines on stdin.
median() { awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "cold grade of $exercise ($submission), median of 5 runs each; load average: $(cut -d' ' -f1 /proc/loadavg)"
printf '%-8s %26s %26s\n' compiler "fully cold: wall / cpu s" "reference built: wall / cpu s"
for compiler in nvcc nvrtc; do
  cold="" warm=""
  for run in 1 2 3 4 5; do
    cache=$scratch/$compiler-$run
    cold+="$(grade_seconds "$cache" "$submission" "$compiler")"$'\n'
    # The same cache now holds the reference; a submission it has not seen compiles cold.
    fresh=$scratch/$compiler-$run-$(basename "$submission")
    { echo "// run $run"; cat "$submission"; } >"$fresh"
    warm+="$(grade_seconds "$cache" "$fresh" "$compiler")"$'\n'
  done
  printf '%-8s %26s %26s\n' "$compiler" \
    "$(printf '%s' "$cold" | median 1) / $(printf '%s' "$cold" | median 2)" \
    "$(printf '%s' "$warm" | median 1) / $(printf '%s' "$warm" | median 2)"
done
