#!/bin/bash
# Opt-in (minutes, network): proves that the exported install steps need nothing of the machine they were
# made on. Installs Debian 12 with debootstrap from Debian's package registry into a fresh root, then
#   1. Gradescope: copies the autograder zip's files to /autograder/source, runs setup.sh there, and runs
#      run_autograder on a passing and a failing submission; the results must match the Gradescope schema;
#   2. PrairieLearn: carries out the grader image's Dockerfile (FROM debian:12 is the fresh root, COPY and
#      RUN as written) in a second fresh root, and runs the entrypoint in /grade.
# Everything runs under bubblewrap with the new root as /. The CUDA toolkit comes from this machine's
# /usr/local/cuda, bound read-only at the same place, standing for the toolkit archive or NVIDIA apt
# repository that install.sh would otherwise use (NVIDIA's repository is not reachable from here).
# Usage: tests/deploy/clean_root.sh BUILD_DIR [WORK_DIR]; needs root, debootstrap, bwrap, unzip, python3.
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d /tmp/gpugrade-clean-root.XXXXXX)}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
gpugrade="$build/grader/gpugrade"
mkdir -p "$work"
log() { echo "clean_root: $*"; }

base="$work/bookworm"
if [ ! -x "$base/bin/bash" ]; then
  log "debootstrap of Debian 12 (minbase) into $base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian
fi

# A fresh copy of the base root, with a name server and the toolkit bound in.
fresh_root() {
  rm -rf "$1"
  cp -a "$base" "$1"
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  mkdir -p "$1/usr/local/cuda"
}
in_root() {
  local root=$1; shift
  bwrap --bind "$root" / --proc /proc --dev /dev --perms 1777 --tmpfs /tmp --ro-bind /usr/local/cuda /usr/local/cuda \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --setenv HOME /root \
    --unsetenv GPUGRADE_CACHE_DIR --unsetenv CUDACXX --unsetenv CUDA_HOME --unsetenv LD_LIBRARY_PATH "$@"
}
validate() {  # SCHEMA FILE
  python3 "$source_dir/tests/validate_schema.py" "$source_dir/docs/deploy/$1" "$2"
}
verdicts() {  # FILE: the exercises and their scores, for the log
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([(t.get("name"), t.get("score", t.get("points"))) for t in r.get("tests", [])], r.get("score"))' "$1"
}

log "Gradescope"
rm -rf "$work/gradescope"
(cd "$source_dir" && "$gpugrade" export gradescope copy transpose-tiled --out "$work/gradescope")
root="$work/root-gradescope"
fresh_root "$root"
mkdir -p "$root/autograder/source" "$root/autograder/results"
unzip -q "$work/gradescope/autograder.zip" -d "$root/autograder/source"
cp "$root/autograder/source/run_autograder" "$root/autograder/run_autograder"
in_root "$root" --chdir /autograder/source bash /autograder/source/setup.sh
for case in pass fail; do
  rm -rf "$root/autograder/submission" "$root/autograder/results"/*
  mkdir -p "$root/autograder/submission"
  cp "$source_dir/solutions/copy/copy.cu" "$root/autograder/submission/"
  if [ $case = pass ]; then cp "$source_dir/solutions/transpose-tiled/transpose.cu" "$root/autograder/submission/"
  else cp "$source_dir/solutions/transpose-tiled/mutants/no_barrier.cu" "$root/autograder/submission/transpose.cu"; fi
  in_root "$root" --chdir /autograder /autograder/run_autograder
  validate gradescope-results.schema.json "$root/autograder/results/results.json"
  log "Gradescope $case: $(verdicts "$root/autograder/results/results.json")"
done

log "PrairieLearn"
rm -rf "$work/prairielearn"
(cd "$source_dir" && "$gpugrade" export prairielearn copy --image example/gpugrade-grader --out "$work/prairielearn")
root="$work/root-prairielearn"
fresh_root "$root"
context="$work/prairielearn/image"
# The Dockerfile's instructions, carried out as docker build would: FROM is the fresh Debian 12 root.
while read -r instruction rest; do
  case "$instruction" in
    FROM) [ "$rest" = "debian:12" ] || { log "unexpected base image $rest"; exit 1; } ;;
    COPY) set -- $rest; mkdir -p "$root$(dirname "$2")"; cp -a "$context/$1" "$root$2" ;;
    RUN) in_root "$root" bash -c "$rest" ;;
    ''|\#*) ;;
    *) log "unknown Dockerfile instruction $instruction"; exit 1 ;;
  esac
done < "$context/Dockerfile"
entrypoint=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])' \
  "$work/prairielearn/questions/copy/info.json")
for case in pass fail; do
  rm -rf "$root/grade"
  mkdir -p "$root/grade/student"
  cp -a "$work/prairielearn/questions/copy/tests" "$root/grade/tests"
  if [ $case = pass ]; then cp "$source_dir/solutions/copy/copy.cu" "$root/grade/student/copy.cu"
  else cp "$source_dir/exercises/copy/copy.cu" "$root/grade/student/copy.cu"; fi
  in_root "$root" --chdir /grade "$entrypoint"
  validate prairielearn-results.schema.json "$root/grade/results/results.json"
  log "PrairieLearn $case: $(verdicts "$root/grade/results/results.json")"
done
log "done: every step ran in a fresh Debian 12 root"
