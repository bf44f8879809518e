#!/usr/bin/env bash
# One device call's worth of GPU measurements for strict, fast and fair grading (docs/gpu-runs.md records
# what it printed): the device, the GPU tests, grade wall times (strict and --gpu-only, three each, the
# median printed), a spinning kernel, an off-by-one write on the GPU alone, `check --backend gpu` of the
# course, and `calibrate` of every speed-judged exercise. Run from the repository root on a GPU machine:
#   bash bench/gpu_strict.sh OUT [BIN] [TESTS]
# OUT receives one file per step; BIN holds gpugrade and gpugrade-launch (default: build/gpu/grader);
# TESTS is the test binary (default: build/gpu/tests/gpugrade_tests; skipped when missing). PARTS (default
# all) picks among: tests grades spin check calibrate.
set -u
out=${1:?usage: bench/gpu_strict.sh OUT [BIN] [TESTS]}
bin=${2:-build/gpu/grader}
tests=${3:-build/gpu/tests/gpugrade_tests}
parts=${4:-tests grades spin check calibrate}
want() { [[ " $parts " == *" $1 "* ]]; }
mkdir -p "$out"
gpugrade="$bin/gpugrade"
speed="copy transpose-naive transpose-tiled transpose-dynamic transpose-padded"

seconds_since() {  # seconds_since EPOCHREALTIME: wall seconds since then, two decimals (no bc needed)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$EPOCHREALTIME"
}

step() {  # step NAME COMMAND...: runs COMMAND into OUT/NAME; prints its exit status and wall time
  local name=$1
  shift
  local start=$EPOCHREALTIME
  "$@" >"$out/$name" 2>&1
  local rc=$?
  printf '%s: exit %d, %s s\n' "$name" "$rc" "$(seconds_since "$start")"
}

median3() {  # median3 NAME COMMAND...: three runs, the wall times and their median
  local name=$1
  shift
  local times=()
  for i in 1 2 3; do
    local start=$EPOCHREALTIME
    "$@" >"$out/$name.$i" 2>&1
    times+=("$(seconds_since "$start")")
  done
  printf '%s: %s s (median of %s)\n' "$name" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)" "${times[*]}"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if want tests && [ -x "$tests" ]; then
  step tests.txt "$tests" --gtest_filter='GpuDevice.*:GpuChildServer.*:GpuRedZone.*:GpuJob.*'
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran|^transpose ' "$out/tests.txt"
fi
if want grades; then
# The first grade pays nvcc's compiles into the cache; the timed ones below find them there.
for e in $speed; do "$gpugrade" grade "$e" --backend gpu --submission "solutions/$e/$(ls solutions/$e | grep '\.cu$')" >/dev/null 2>&1; done
median3 grade-tiled-strict "$gpugrade" grade transpose-tiled --backend gpu --submission solutions/transpose-tiled/transpose.cu --format json
median3 grade-tiled-gpu-only "$gpugrade" grade transpose-tiled --backend gpu --gpu-only --submission solutions/transpose-tiled/transpose.cu --format json
median3 grade-tiled-sim "$gpugrade" grade transpose-tiled --backend sim --submission solutions/transpose-tiled/transpose.cu --format json
python3 - "$out/grade-tiled-strict.1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["metrics"].get("throughput", {})
print(f'  strict: {r["verdict"]}, {len(r["runs"])} gpu runs, {r["metrics"].get("simulator")}, ratio {t.get("ratio")}, '
      f'bar {t.get("min_ratio")} on {t.get("device")}, margin {t.get("margin")}, noise {t.get("noise")}')
PY
for e in $speed; do
  median3 "grade-$e-strict" "$gpugrade" grade "$e" --backend gpu --submission "solutions/$e/$(ls solutions/$e | grep '\.cu$')"
  grep -h 'runs on' "$out/grade-$e-strict.1"
done
fi
if want spin; then
step spin-strict.txt "$gpugrade" grade residue --backend gpu --submission solutions/residue/mutants/never_ends.cu
step spin-gpu-only.txt "$gpugrade" grade residue --backend gpu --gpu-only --submission solutions/residue/mutants/never_ends.cu
step off-by-one-gpu-only.txt "$gpugrade" grade transpose-dynamic --backend gpu --gpu-only --verbose \
  --submission solutions/transpose-dynamic/mutants/guard_off_by_one.cu
grep -E 'out-of-bounds|runs on' "$out/off-by-one-gpu-only.txt" | cut -c1-300
fi
if want check; then
step check-gpu.txt "$gpugrade" check --backend gpu
tail -n 60 "$out/check-gpu.txt"
step check-gpu-only.txt "$gpugrade" check transpose-dynamic --backend gpu --gpu-only
tail -n 12 "$out/check-gpu-only.txt"
fi
want calibrate && for e in $speed; do
  step "calibrate-$e.txt" "$gpugrade" calibrate "$e" --gpu-only --repeats 100
  cat "$out/calibrate-$e.txt"
done
