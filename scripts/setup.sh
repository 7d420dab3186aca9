#!/usr/bin/env bash
# Installs what building and testing Lanewise needs, if it is missing:
# LLVM 22 (llvm-config-22, the libraries llvm-sys links against, llc-22),
# clang-22, the compression/xml/ffi libraries LLVM links with, gcc (the
# corpus tests compare against GCC's simd clones), g++ (the pass plugin's
# C++ shim), clang-22's C++ headers (libclang-22-dev: the frontend plugin,
# crates/plugin/src/frontend.cpp), cmake (the plugin's CMake example, tested) and the OpenCL
# platform's neighbours: the Khronos headers, the ICD loader, clinfo and PoCL
# (the reference platform the OpenCL tests compare with). Idempotent: runs
# apt-get only when something is missing. Works as root without sudo.
set -euo pipefail

packages=(llvm-22 llvm-22-dev llvm-22-tools clang-22 libclang-rt-22-dev libclang-22-dev libomp-22-dev zlib1g-dev libzstd-dev libxml2-dev libffi-dev gcc g++ libc6-dev cmake opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 clinfo pocl-opencl-icd)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup: installing ${missing[*]}"
    if [[ $(id -u) -eq 0 ]]; then
        sudo=()
    else
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update
    "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
    echo "setup: all packages present (${packages[*]})"
fi

for tool in llvm-config-22 clang-22 llc-22 gcc g++ cmake clinfo; do
    if ! command -v "$tool" >/dev/null; then
        echo "setup: $tool is not on PATH after installing" >&2
        exit 1
    fi
done

llvm_version=$(llvm-config-22 --version)
if [[ $llvm_version != 22* ]]; then
    echo "setup: llvm-config-22 reports version $llvm_version, expected 22.x" >&2
    exit 1
fi
echo "setup: LLVM $llvm_version at $(llvm-config-22 --prefix); $(clang-22 --version | head -n 1); $(gcc --version | head -n 1)"
