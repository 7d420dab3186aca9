#!/usr/bin/env bash
# The main job: vectorize the demo kernels with lanewise, check them against
# the scalar functions, and print the speedups. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p lanewise
out=target/demo
mkdir -p "$out"
echo "== compiling demo/kernels.c with clang-22 -O3 -march=native -fopenmp-simd"
clang-22 -O3 -march=native -fopenmp-simd -S -emit-llvm demo/kernels.c -o "$out/kernels.ll"
echo "== vectorizing with lanewise (declare-simd mode)"
target/release/lanewise "$out/kernels.ll" -o "$out/kernels.vec.ll"
grep -o '^define [^@]*@_ZGV[A-Za-z0-9_]*' "$out/kernels.vec.ll" | sed 's/.*@/   produced /'
clang-22 -O3 -march=native -c "$out/kernels.vec.ll" -o "$out/kernels.o"
clang-22 -O3 -march=native demo/driver.c "$out/kernels.o" -lmvec -lm -o "$out/demo"
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "== compiler: $(clang-22 --version | head -1)"
"$out/demo"
