#!/usr/bin/env bash
# `check --backend gpu` of the whole course on a GPU machine, in one device call's time: the exercises with
# a speed bar one after another (their timing must not share the GPU), the others four at a time (they are
# judged on correctness only, and the simulator's pass is most of their time). Prints one line per
# exercise (exit status, wall seconds, the check's last line) and keeps each exercise's output in OUT.
#   bash bench/gpu_course.sh OUT [BIN] [PARALLEL]
# BIN holds gpugrade and gpugrade-launch (default build/ci/grader). docs/gpu-runs.md records what it printed.
set -u
out=${1:?usage: bench/gpu_course.sh OUT [BIN] [PARALLEL]}
bin=${2:-build/ci/grader}
parallel=${3:-4}
mkdir -p "$out"
export GPUGRADE=$bin/gpugrade OUTDIR=$out

check_one() {  # check_one EXERCISE: one line of what `check --backend gpu EXERCISE` said
  local e=$1 start=$EPOCHREALTIME rc
  "$GPUGRADE" check "$e" --backend gpu >"$OUTDIR/check-$e.txt" 2>&1
  rc=$?
  printf '%-20s exit %d  %6.1f s  %s\n' "$e" "$rc" \
    "$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$EPOCHREALTIME")" \
    "$(grep -v '^\s*$' "$OUTDIR/check-$e.txt" | tail -n 1 | cut -c1-120)"
}
export -f check_one

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
timed=()
untimed=()
for dir in exercises/*/; do
  e=$(basename "$dir")
  [ -f "$dir/exercise.yaml" ] || continue
  if grep -q '^ *gpu:' "$dir/exercise.yaml"; then timed+=("$e"); else untimed+=("$e"); fi
done
echo "speed-judged, one at a time: ${timed[*]}"
for e in "${timed[@]}"; do check_one "$e"; done
echo "correctness only, $parallel at a time: ${untimed[*]}"
printf '%s\n' "${untimed[@]}" | xargs -P "$parallel" -I{} bash -c 'check_one {}'
# Every row that did not go as expected, for the record.
grep -h -- '<--' "$out"/check-*.txt | cut -c1-400 | head -n 60
