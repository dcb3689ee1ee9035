#!/bin/sh
# install-deps.sh - install the Debian packages that building and testing mlcc
# need.  Safe to run again: it asks apt only for what is missing, so a machine
# that already has everything is left alone (and needs no root).  Runs as root
# or through sudo, never asks a question.
#
# One package per line in PACKAGES, each with the command or file that shows it
# is usable; dpkg's status is checked for every package.  Features that need more libraries
# add their packages here.
set -eu

# package            probe (a command on PATH, or an absolute file path; "-" = dpkg only)
# build-essential: gcc, libc headers, ASan/UBSan runtimes for `make test SAN=1`;
# clang + libclang-rt-14-dev: libFuzzer for `make fuzz`; zlib: .npz tensors;
# OpenBLAS: extern functions and benchmarks; protobuf-c + libonnx-dev: ONNX import
# (the C code is generated from the onnx.proto libonnx-dev ships); cJSON:
# profiles, reports and tuning records (mlcc run --profile-json, mlcc report,
# mlcc tune); XGBoost's C API: the tuner's cost model; xmllint: the
# test that the report is well-formed; numpy + pytest: the Python package's
# tests (python/tests), torch: its PyTorch tests (from_fx, from_torch).
# OpenCL: the ICD loader and headers
# (generated kernels are loaded through libOpenCL at run time with dlopen) and
# PoCL, which runs OpenCL kernels on the CPU so the GPU targets' output is run
# and checked on any machine; clinfo lists the platforms.
PACKAGES='
build-essential      -
make                 make
clang                clang
libclang-rt-14-dev   -
zlib1g-dev           /usr/include/zlib.h
libopenblas-dev      -
protobuf-c-compiler  protoc-c
libprotobuf-c-dev    /usr/include/protobuf-c/protobuf-c.h
libonnx-dev          /usr/include/onnx/onnx.proto
libcjson-dev         /usr/include/cjson/cJSON.h
libxgboost-dev       /usr/include/xgboost/c_api.h
libxml2-utils        xmllint
python3-numpy        /usr/lib/python3/dist-packages/numpy/__init__.py
python3-pytest       /usr/lib/python3/dist-packages/pytest/__init__.py
python3-torch        /usr/lib/python3/dist-packages/torch/__init__.py
ocl-icd-libopencl1   -
ocl-icd-opencl-dev   -
opencl-headers       /usr/include/CL/cl.h
pocl-opencl-icd      -
clinfo               clinfo
'

# is_present PACKAGE PROBE: true when the package is installed and its probe
# (when there is one) is found.
is_present() {
  # "install ok installed", not merely known to dpkg (removed packages keep
  # a status entry while their configuration files remain)
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ] || return 1
  case "$2" in
    -) return 0 ;;
    /*) [ -e "$2" ] ;;
    *) command -v "$2" >/dev/null 2>&1 ;;
  esac
}

# --slurm adds Debian's Slurm for `make test-slurm` (the tuner measuring
# through srun on a private single-node cluster); nothing else needs it
SLURM_PACKAGES='
slurm-wlm            /usr/sbin/slurmctld
'
if [ "${1:-}" = --slurm ]; then PACKAGES="$PACKAGES$SLURM_PACKAGES"; fi

missing=''
# shellcheck disable=SC2086
set -- $PACKAGES
while [ $# -ge 2 ]; do
  if ! is_present "$1" "$2"; then
    missing="$missing $1"
  fi
  shift 2
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=''
elif command -v sudo >/dev/null 2>&1; then
  # sudo may ask for a password on a terminal; without one it must not wait
  if [ -t 0 ]; then SUDO='sudo'; else SUDO='sudo -n'; fi
else
  echo "install-deps: need root (or sudo) to install:$missing" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
