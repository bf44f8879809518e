#!/bin/bash
# Installs what the bundled gpugrade needs on Debian 12, Ubuntu 22.04 or Ubuntu 24.04, then proves it:
#   - g++: the exercises' references are built with it, and nvcc uses it as its host compiler;
#   - bubblewrap: nvcc runs in its sandbox (without it, with time and memory limits only);
#   - the CUDA @CUDA_RELEASE@ compiler and NVRTC, unless $CUDA_HOME (default /usr/local/cuda) already holds
#     bin/nvcc: from a toolkit archive cuda-*.tar.* placed beside this script (unpacked into $CUDA_HOME),
#     else from NVIDIA's apt repository for this distribution (network needed).
# Usage: install.sh [COURSE]: with a course folder, its solutions are graded at the end and must pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
course=${1:-}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive

as_root apt-get update -q
as_root apt-get install -y -q --no-install-recommends g++ bubblewrap ca-certificates curl

cuda=${CUDA_HOME:-/usr/local/cuda}
archive=$(ls "$here"/cuda-*.tar.* 2>/dev/null | head -n 1 || true)
if [ -x "$cuda/bin/nvcc" ]; then
  echo "install.sh: using the CUDA compiler already in $cuda"
elif [ -n "$archive" ]; then
  echo "install.sh: unpacking $archive into $cuda"
  as_root mkdir -p "$cuda"
  as_root tar -xf "$archive" -C "$cuda" --strip-components=1
else
  . /etc/os-release
  case "$ID$VERSION_ID" in
    debian12) repo=debian12 ;;
    ubuntu22.04) repo=ubuntu2204 ;;
    ubuntu24.04) repo=ubuntu2404 ;;
    *) echo "install.sh: no NVIDIA repository known for $PRETTY_NAME; put a CUDA toolkit archive cuda-*.tar.xz beside this script, or install the toolkit in $cuda" >&2
       exit 1 ;;
  esac
  keyring=$(mktemp)
  curl -fsSL -o "$keyring" "https://developer.download.nvidia.com/compute/cuda/repos/$repo/x86_64/cuda-keyring_1.1-1_all.deb"
  as_root dpkg -i "$keyring"
  rm -f "$keyring"
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends cuda-nvcc-@CUDA_PACKAGE@ cuda-nvrtc-dev-@CUDA_PACKAGE@ cuda-cudart-dev-@CUDA_PACKAGE@
  if [ ! -x "$cuda/bin/nvcc" ]; then as_root ln -sfn /usr/local/cuda-@CUDA_RELEASE@ "$cuda"; fi
fi
"$cuda/bin/nvcc" --version | tail -n 2

chmod +x "$here/bin/gpugrade" "$here"/libexec/*
if [ -n "$course" ] && [ -d "$course/solutions" ]; then
  # The solutions graded as a submission would be: the same command, the same layout search.
  results=$(mktemp)
  status=0
  "$here/bin/gpugrade" --root "$course" autograde gradescope --submission "$course/solutions" --results "$results" || status=$?
  cat "$results"
  rm -f "$results"
  if [ "$status" != 0 ]; then
    echo "install.sh: the course's solutions did not pass (exit $status): the installation is not working" >&2
    exit 1
  fi
  echo "install.sh: gpugrade is installed and grades the course's solutions as passing"
fi
