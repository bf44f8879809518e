#!/usr/bin/env bash
# `gpugrade batch` on a synthetic class, cold: a fresh compile cache and a fresh results folder. Makes the
# class with bench/make_class.py (solutions, mutants, stubs and hostile files; every file distinct), grades it
# on the simulator with -j JOBS, and prints the wall time and what the batch reported.
#
# usage: bash bench/batch_class.sh [BIN] [STUDENTS] [JOBS]   (defaults: build/release/grader/gpugrade 200 nproc)
# EXERCISES (space-separated) picks the exercises; the default is the seed's seven, the class-scale target's
# "200 students x 7 exercises"; EXERCISES=all grades the whole course.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/grader/gpugrade}")
students=${2:-200}
jobs=${3:-$(nproc)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
exercises=${EXERCISES:-copy residue sync-tile transpose-naive transpose-tiled transpose-padded transpose-dynamic}
picked=()
if [[ $exercises != all ]]; then for e in $exercises; do picked+=(--exercise "$e"); done; fi
python3 bench/make_class.py "$scratch/class" --students "$students" "${picked[@]}"
# Wall time, and the CPU time (user + system) of gpugrade and every process it started, which a loaded
# machine does not inflate: on an otherwise idle machine the wall time is about cpu / cores.
TIMEFORMAT='%R %U %S'
times=$( { time GPUGRADE_CACHE_DIR=$scratch/cache "$bin" batch "$scratch/class" --out "$scratch/out" \
  --backend sim -j "$jobs" "${picked[@]}" >&2; } 2>&1 | tail -n 1)
echo "$times" | awk -v n="$students" -v j="$jobs" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
  '{printf "gpugrade batch, %d students, -j %d, cold: %.1f s wall, %.1f s cpu (load average %s at the end)\n", n, j, $1, $2 + $3, load}'
sed -n '3,12p' "$scratch/out/summary.md"
