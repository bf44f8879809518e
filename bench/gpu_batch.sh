#!/usr/bin/env bash
# `gpugrade batch --backend gpu` with each worker's lent launcher against a launcher per grade: a class of
# STUDENTS distinct copies of transpose-tiled's solution (a comment line apart, so none is deduplicated),
# the compile cache warmed by one batch first, then for -j 1 and -j 2 each way REPEATS times, a fresh
# results folder each time. Prints each run's wall time, the medians side by side, and how many grades
# passed (all should).
#
# usage: bash bench/gpu_batch.sh [BIN] [STUDENTS] [REPEATS]   (defaults: build/ci/grader/gpugrade 8 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/ci/grader/gpugrade}")
students=${2:-8}
repeats=${3:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for k in $(seq 1 "$students"); do
  dir=$scratch/class/s$k/exercises/transpose-tiled
  mkdir -p "$dir"
  { cat solutions/transpose-tiled/transpose.cu; echo "// copy $k"; } >"$dir/transpose.cu"
done
export GPUGRADE_CACHE_DIR=$scratch/cache
run() {  # run OUT -j FLAGS...: prints the wall seconds
  local start end
  start=$(date +%s.%N)
  "$bin" batch "$scratch/class" --out "$1" --exercise transpose-tiled --backend gpu "${@:2}" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}'
}
run "$scratch/warm" -j 2 >/dev/null
echo "gpugrade batch --backend gpu, $students submissions of transpose-tiled, $repeats runs each, wall seconds"
for jobs in 1 2; do
  for way in lent per-grade; do
    flags=(-j "$jobs")
    [[ $way == per-grade ]] && flags+=(--launcher-per-grade)
    times=()
    for r in $(seq 1 "$repeats"); do
      rm -rf "$scratch/out"
      times+=("$(run "$scratch/out" "${flags[@]}")")
    done
    passed=$(tail -n +2 "$scratch/out/gradebook.csv" | awk -F, '$2 > 0' | wc -l)
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf -- '-j %s %-9s median %6.2f s  (%s)  %s of %s passed\n' "$jobs" "$way" "$median" "${times[*]}" "$passed" "$students"
  done
done
