#!/usr/bin/env bash
# The OpenCL benchmark (bench/opencl): the same kernels through Lanewise's
# OpenCL platform and PoCL, in one process, results compared. Writes
# target/bench/opencl.md. Lanewise is the first platform (the reference of
# the comparison); the last column is how many times faster Lanewise is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo build --release -p lanewise-opencl
out=target/bench/opencl
mkdir -p "$out/vendors"
echo "$(pwd)/target/release/liblanewise_opencl.so" >"$out/vendors/0-lanewise.icd"
if [[ -f /etc/OpenCL/vendors/pocl.icd ]]; then
    cp /etc/OpenCL/vendors/pocl.icd "$out/vendors/1-pocl.icd"
fi
gcc -O2 -Wall bench/opencl/opencl_bench.c -lOpenCL -lm -o "$out/opencl_bench"
{
    echo "# OpenCL kernels: Lanewise vs PoCL"
    echo
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(date -u +%Y-%m-%d)."
    echo "Median of 7 runs (enqueue + clFinish), after one warm-up run; results compared."
    echo
    OCL_ICD_VENDORS=$(pwd)/$out/vendors "$out/opencl_bench"
} | tee target/bench/opencl.md
