#!/usr/bin/env bash
# The performance model against the device (docs/performance-model.md): for every speed-judged exercise,
# `calibrate` on the GPU (measured ratios) and `calibrate --device DEVICE` on the simulator (predicted
# ratios) of the solution, the alternatives and the too-slow mutants, then one table: measured, predicted,
# the error, and each side's verdict against the exercise's bar on the device. Run on a GPU machine:
#   bash bench/predict_h200.sh OUT [BIN] [DEVICE]
# BIN holds gpugrade (default build/ci/grader); DEVICE a devices/*.yaml name (default h200).
set -u
out=${1:?usage: bench/predict_h200.sh OUT [BIN] [DEVICE]}
bin=${2:-build/ci/grader}
device=${3:-h200}
mkdir -p "$out"
speed=$(for d in exercises/*/; do grep -q '^ *gpu:' "$d/exercise.yaml" 2>/dev/null && basename "$d"; done)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for e in $speed; do
  "$bin/gpugrade" calibrate "$e" --gpu-only --repeats 100 >"$out/measured-$e.txt" 2>&1
  "$bin/gpugrade" calibrate "$e" --device "$device" >"$out/predicted-$e.txt" 2>&1
done
python3 - "$out" $speed <<'PY'
import re, sys
out, exercises = sys.argv[1], sys.argv[2:]
row = re.compile(r"^  (\S+)\s+(correct|too slow)\s+(\d+\.\d+|not timed)")
bar_line = re.compile(r"the exercise's bar on this device today: ([\d.]+)")
def read(path):
    ratios, bar = {}, None
    for line in open(path):
        if m := row.match(line): ratios[m[1]] = (m[2], None if m[3] == "not timed" else float(m[3]))
        if m := bar_line.search(line): bar = float(m[1])
    return ratios, bar
print("| exercise | kernel | should | measured | predicted | error | bar | measured verdict | predicted verdict |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
worst, disagree, missing = 0.0, 0, 0
for e in exercises:
    measured, bar = read(f"{out}/measured-{e}.txt")
    predicted, _ = read(f"{out}/predicted-{e}.txt")
    for kernel, (should, m) in measured.items():
        p = predicted.get(kernel, (should, None))[1]
        verdict = lambda r: "n/a" if r is None or bar is None else ("pass" if r >= bar else "too slow")
        err = "n/a" if m is None or p is None else f"{(p - m) / m * 100:+.1f}%"
        if m is not None and p is not None:
            worst = max(worst, abs(p - m) / m)
            disagree += verdict(m) != verdict(p)
        else:
            missing += 1
        print(f"| {e} | {kernel} | {should} | {m if m is not None else 'n/a'} | {p if p is not None else 'n/a'} "
              f"| {err} | {bar} | {verdict(m)} | {verdict(p)} |")
print(f"\nlargest error {worst * 100:.1f}%, verdicts that differ {disagree}, kernels without both ratios {missing}")
PY
