#!/usr/bin/env bash
# Grades and checks the shipped curriculum on a GPU and prints what docs/gpu-runs.md records: the device,
# each solution's throughput against the copy baseline, `check --backend gpu` with and without --sanitize,
# and the sanitizer's findings for two mutants. Run from the repository root on a machine with a GPU:
#   bash bench/gpu_curriculum.sh OUT [BIN] [grades|check|check-sanitize|all]
# OUT receives one file per step; BIN holds gpugrade and gpugrade-launch (default: build/release/grader).
# `grades` grades the solutions and three mutants; `check` checks every exercise on the GPU (about six
# minutes on an H200); `check-sanitize` checks sync-tile and residue with --sanitize (about five).
set -u
out=${1:?usage: bench/gpu_curriculum.sh OUT [BIN] [grades|check|check-sanitize|all]}
bin=${2:-build/release/grader}
part=${3:-all}
mkdir -p "$out"
gpugrade="$bin/gpugrade"

step() {  # step NAME COMMAND...: runs COMMAND into OUT/NAME, and prints its exit status and wall time
  local name=$1
  shift
  local start=$SECONDS
  "$@" >"$out/$name" 2>&1
  local rc=$?
  echo "$name: exit $rc, $((SECONDS - start)) s"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
command -v compute-sanitizer || echo "compute-sanitizer: not on PATH"

grades() {
  for e in copy transpose-naive transpose-tiled transpose-dynamic transpose-padded; do
    file=$(ls "solutions/$e"/*.cu)
    step "grade-$e.json" "$gpugrade" grade "$e" --submission "$file" --backend gpu --format json
    python3 - "$out/grade-$e.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("metrics", {}).get("throughput")
sizes = sorted({run["size"] for run in r["runs"]})
line = f'  {r["exercise"]}: {r["verdict"]}, {len(r["runs"])} runs ({", ".join(sizes)})'
if t:
    line += (f'; {t["subject"]["gb_per_s"]:.0f} GB/s, baseline {t["baseline"]["gb_per_s"]:.0f}, '
             f'ratio {t["ratio"]:.2f} (needs {t["min_ratio"]}), cuMemcpyDtoD {t["memcpy_dtod"]["gb_per_s"]:.0f}, '
             f'spread {t["subject"]["spread"]:.3f}')
print(line)
for f in r["findings"]:
    print(f'    {f["severity"]} {f["kind"]} line {f.get("line", 0)}: {f["message"][:160]}')
EOF
  done

  step grade-tiled-no-barrier-sanitize.txt "$gpugrade" grade transpose-tiled --backend gpu --sanitize --verbose \
    --submission solutions/transpose-tiled/mutants/no_barrier.cu
  step grade-residue-barrier-in-branch-sanitize.txt "$gpugrade" grade residue --backend gpu --sanitize --verbose \
    --submission solutions/residue/mutants/barrier_in_branch.cu
  step grade-sync-tile-no-barrier.txt "$gpugrade" grade sync-tile --backend gpu --verbose \
    --submission solutions/sync-tile/mutants/no_barrier.cu
}

case $part in
  grades) grades ;;
  check) step check-gpu.txt "$gpugrade" check --backend gpu ;;
  check-sanitize) step check-gpu-sanitize.txt "$gpugrade" check sync-tile residue --backend gpu --sanitize ;;
  all)
    grades
    step check-gpu.txt "$gpugrade" check --backend gpu
    step check-gpu-sanitize.txt "$gpugrade" check sync-tile residue --backend gpu --sanitize
    ;;
esac
for f in "$out"/*.txt; do
  echo "== $(basename "$f")"
  tail -n 40 "$f"
done
