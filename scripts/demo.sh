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
echo "== vectorizing with lanewise (declare-simd mode, --vector-math libmvec: libm calls within 4 ulp)"
target/release/lanewise --vector-math libmvec "$out/kernels.ll" -o "$out/kernels.vec.ll"
grep -o '^define [^@]*@_ZGV[A-Za-z0-9_]*' "$out/kernels.vec.ll" | sed 's/.*@/   produced /'
clang-22 -O3 -march=native -c "$out/kernels.vec.ll" -o "$out/kernels.o"
clang-22 -O3 -march=native demo/driver.c "$out/kernels.o" -lmvec -lm -o "$out/demo"
echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "== compiler: $(clang-22 --version | head -1)"
"$out/demo"

# Whole programs: `lanewise cc` against clang-22 on `#pragma omp simd` loops
# clang leaves scalar (outputs compared, then the kernels timed).
echo "== lanewise cc: omp simd loops clang leaves scalar (tests/programs)"
for program in mandelbrot newton_inner_while nested_simd_inner reduce_int_minmax; do
    source_file=tests/programs/$program.c
    flags=(-O3 -march=native -fopenmp-simd -Itests/programs)
    clang-22 "${flags[@]}" "$source_file" -lm -o "$out/$program.clang" 2>"$out/$program.clang.log"
    target/release/lanewise cc "${flags[@]}" "$source_file" -lm -o "$out/$program.lanewise"
    if ! cmp -s <("$out/$program.clang" 2>/dev/null) <("$out/$program.lanewise" 2>/dev/null); then
        echo "   $program: outputs differ from clang's"
        exit 1
    fi
    clang-22 "${flags[@]}" -DBENCH=50 "$source_file" -lm -o "$out/$program.clang.bench" 2>/dev/null
    target/release/lanewise cc "${flags[@]}" -DBENCH=50 "$source_file" -lm -o "$out/$program.lanewise.bench"
    seconds() { "$1" 2>&1 >/dev/null | awk '/^lanewise-bench kernel-seconds/ { print $3 }'; }
    clang_seconds=$(seconds "$out/$program.clang.bench")
    lanewise_seconds=$(seconds "$out/$program.lanewise.bench")
    awk -v name="$program" -v c="$clang_seconds" -v l="$lanewise_seconds" \
        'BEGIN { printf "   %-20s same output; clang %.4f s, lanewise cc %.4f s: %.2fx\n", name, c, l, c / l }'
done
