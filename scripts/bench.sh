#!/usr/bin/env bash
# The benchmark suite (bench/README.md): builds lanewise in release, builds one
# program per kernel of bench/kernels/ with every configuration linked in,
# runs each (on each input variant), and writes target/bench/report.md,
# target/bench/report.json and target/bench/speedup.svg.
#
#   scripts/bench.sh                 # everything (about 5-10 minutes on 2 cores)
#   BENCH_KERNELS="bt nn" scripts/bench.sh   # only these kernels
#   BENCH_REPEATS=9 scripts/bench.sh         # timed rounds per configuration (default 5)
#   LANEWISE=/path/to/lanewise scripts/bench.sh   # use this binary, skip the cargo build
#   BENCH_LANEWISE_FLAGS="--no-boscc" scripts/bench.sh   # extra lanewise flags (ablations)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [[ -f scripts/setup.sh ]]; then
    bash scripts/setup.sh || { echo "bench: scripts/setup.sh failed" >&2; exit 1; }
fi
command -v python3 >/dev/null || { echo "bench: python3 is needed for the report" >&2; exit 1; }

if [[ -z ${LANEWISE:-} ]]; then
    echo "== cargo build --release -p lanewise"
    cargo build --release -p lanewise || { echo "bench: building lanewise failed" >&2; exit 1; }
    LANEWISE=${CARGO_TARGET_DIR:-$root/target}/release/lanewise
fi
[[ -x $LANEWISE ]] || { echo "bench: no lanewise binary at $LANEWISE" >&2; exit 1; }

out=$root/target/bench
rm -rf "$out/build" "$out/results"
mkdir -p "$out/build" "$out/results"

# Every configuration is compiled without floating-point contraction, so that
# all of them compute the same operations and can be compared bit for bit
# (GCC contracts across statements by default, clang within expressions).
cflags=(-O3 -march=native -ffp-contract=off -I"$root/include")
# Kernels written in the PLDI'18 programming model call the SPMD builtins of
# lanewise/rv.h (rv_any, ...). Every configuration but lanewise's compiles
# them with their one-lane meaning (inline definitions); lanewise sees the
# calls and gives them their W-lane meaning.
scalar_cflags=("${cflags[@]}" -DLANEWISE_RV_SCALAR)
# Extra flags for the IR handed to lanewise. clang's SLP vectorizer packs
# pairs of scalar operations of the scalar function into <2 x float> vectors,
# which lanewise does not widen yet ("varying aggregate and vector operations
# are not widened yet"), and the loop vectorizer does the same to uniform
# inner loops; the suite turns both off for lanewise's input only. Runtime
# and partial unrolling are held back too, as `lanewise cc` holds them in its
# step 1 (crates/lanewise/src/cc.rs): unrolled before vectorization, a loop
# makes each lane run several iterations per trip, and the scalar function
# the safety net calls per lane came out of the second `-O3` (the one that
# compiles lw.vec.ll) unrolled twice and vectorized, 20% slower than the
# scalar program on ragged's short rows (ragged short 0.73x -> 1.25x,
# random 1.02x -> 1.16x). Full unrolling of small constant loops stays
# (barnes_hut 3.57x with it, 3.17x without).
# Set BENCH_LANEWISE_CFLAGS= (empty) to measure the plain -O3 IR.
read -r -a lanewise_cflags <<<"${BENCH_LANEWISE_CFLAGS--fno-slp-vectorize -fno-vectorize -mllvm -unroll-runtime=false -mllvm -unroll-allow-partial=false}"
clang=clang-22
gcc=gcc

# The first `lanewise: error` line of a log, or its first line.
first_error() {
    local line
    line=$(grep -m1 -i 'error' "$1" || true)
    [[ -n $line ]] || line=$(head -n1 "$1")
    printf '%s' "${line:-no output}" | tr '\t' ' '
}

# lanewise with extra flags on a kernel's IR; prints the reason on failure.
# A flag lanewise does not know yet ("unexpected argument") means the feature
# has not landed: reported as "not supported yet". Every configuration maps
# libm calls to libmvec (`--vector-math libmvec`; the kernels are compiled
# without fast-math, so the default `auto` would keep them exact per lane),
# and the driver checks those kernels within libmvec's documented ulp.
run_lanewise() {  # name_of_log input.ll output.ll flags...
    local log=$1 input=$2 output=$3
    shift 3
    local extra=()
    read -r -a extra <<<"${BENCH_LANEWISE_FLAGS:-}"
    if "$LANEWISE" --vector-math=libmvec "${extra[@]}" "$@" "$input" -o "$output" >"$log" 2>&1; then
        return 0
    fi
    if grep -q 'unexpected argument' "$log"; then
        echo "not supported yet: lanewise $* -> $(first_error "$log")"
    else
        echo "lanewise rejected the kernel: $(first_error "$log")"
    fi
    return 1
}

# Builds target/bench/build/NAME/bench; exports the not-run reasons of the
# lanewise configurations into NAME/env (sourced before running).
# With a second argument `per_lane`, the kernel source is
# bench/kernels/per_lane/NAME.c (the per-lane formulation of a tree kernel)
# and everything goes to NAME.per_lane.
build_kernel() {
    local name=$1 dir=$out/build/$1${2:+.$2}
    local kernel=$root/bench/kernels/${2:+$2/}$name.c driver=$root/bench/drivers/$name.c
    mkdir -p "$dir"
    local objects=() reason
    : >"$dir/env"
    set -e
    # scalar: plain clang -O3, no OpenMP, so no variants are declared.
    $clang "${scalar_cflags[@]}" -D"$name=${name}_scalar" -c "$kernel" -o "$dir/scalar.o"
    # clang omp: the driver loop under `omp simd`, with the kernel in the same TU.
    $clang "${scalar_cflags[@]}" -fopenmp-simd -DBENCH_LOOP -DBENCH_LOOP_INCLUDES_KERNEL \
        -DBENCH_KERNEL_SOURCE="\"$kernel\"" \
        -D"$name=${name}_clang_omp" -Domp_loop=omp_loop_clang -c "$driver" -o "$dir/clang_omp.o"
    # gcc: the kernel with its simd clones, and the loop calling them from another TU.
    $gcc "${scalar_cflags[@]}" -fopenmp-simd -D"$name=${name}_gcc" -c "$kernel" -o "$dir/gcc_kernel.o"
    $gcc "${scalar_cflags[@]}" -fopenmp-simd -DBENCH_LOOP -D"$name=${name}_gcc" -Domp_loop=omp_loop_gcc \
        -c "$driver" -o "$dir/gcc_loop.o"
    objects+=("$dir/scalar.o" "$dir/clang_omp.o" "$dir/gcc_kernel.o" "$dir/gcc_loop.o")
    if [[ -f $root/bench/hand/$name.c ]]; then
        $clang "${scalar_cflags[@]}" -c "$root/bench/hand/$name.c" -o "$dir/hand.o"
        objects+=("$dir/hand.o")
    fi
    # lanewise: the kernel's IR as clang emits it with its declare-simd variants.
    $clang "${cflags[@]}" "${lanewise_cflags[@]}" -fopenmp-simd -D"$name=${name}_lw" -S \
        -emit-llvm "$kernel" -o "$dir/lw.ll"
    $clang "${cflags[@]}" "${lanewise_cflags[@]}" -fopenmp-simd -D"$name=${name}_lwfull" -S \
        -emit-llvm "$kernel" -o "$dir/lwfull.ll"
    set +e
    if reason=$(run_lanewise "$dir/lanewise.log" "$dir/lw.ll" "$dir/lw.vec.ll"); then
        if $clang "${cflags[@]}" -c "$dir/lw.vec.ll" -o "$dir/lw.o" 2>"$dir/lw-llc.log"; then
            objects+=("$dir/lw.o")
        else
            reason="clang-22 could not compile lanewise's output: $(first_error "$dir/lw-llc.log")"
            printf 'export BENCH_NOT_RUN_lanewise=%q\n' "$reason" >>"$dir/env"
        fi
    else
        printf 'export BENCH_NOT_RUN_lanewise=%q\n' "$reason" >>"$dir/env"
    fi
    if reason=$(run_lanewise "$dir/lanewise-full.log" "$dir/lwfull.ll" "$dir/lwfull.vec.ll" \
        --linearize=full); then
        if $clang "${cflags[@]}" -c "$dir/lwfull.vec.ll" -o "$dir/lwfull.o" 2>"$dir/lwfull-llc.log"; then
            objects+=("$dir/lwfull.o")
        else
            reason="clang-22 could not compile lanewise's output: $(first_error "$dir/lwfull-llc.log")"
            printf 'export BENCH_NOT_RUN_lanewise_full=%q\n' "$reason" >>"$dir/env"
        fi
    else
        printf 'export BENCH_NOT_RUN_lanewise_full=%q\n' "$reason" >>"$dir/env"
    fi
    $clang "${cflags[@]}" -c "$driver" -o "$dir/driver.o" || return 1
    $clang "${cflags[@]}" "$dir/driver.o" "${objects[@]}" -lmvec -lm -o "$dir/bench" || return 1

    # SIMD utilization: a second program with the variant instrumented by
    # `lanewise --instrument-utilization` in place of lw.o (same symbols).
    # Not supported yet -> the reason goes into the report's utilization column.
    $clang "${cflags[@]}" "${lanewise_cflags[@]}" -fopenmp-simd -D"$name=${name}_lw" -S \
        -emit-llvm "$kernel" -o "$dir/lwutil.ll" || return 1
    if reason=$(run_lanewise "$dir/lanewise-util.log" "$dir/lwutil.ll" "$dir/lwutil.vec.ll" \
        --instrument-utilization); then
        local util_objects=("${objects[@]/$dir\/lw.o/}")
        if $clang "${cflags[@]}" -c "$dir/lwutil.vec.ll" -o "$dir/lwutil.o" 2>"$dir/lwutil-llc.log" &&
            $clang "${cflags[@]}" "$dir/driver.o" ${util_objects[@]} "$dir/lwutil.o" -lmvec -lm \
                -o "$dir/bench-utilization" 2>>"$dir/lwutil-llc.log"; then
            : >"$dir/utilization.reason"
        else
            echo "instrumented build failed: $(first_error "$dir/lwutil-llc.log")" >"$dir/utilization.reason"
        fi
    else
        echo "$reason" >"$dir/utilization.reason"
    fi
    return 0
}

# Builds and runs one kernel on each of its inputs. With a second argument
# `per_lane`, the per-lane formulation (bench/kernels/per_lane/NAME.c); its
# rows are reported as kernel NAME/per-lane, class "per-lane".
run_kernel() {  # name [per_lane]
    local name=$1 variant=${2:-}
    local stem=$name${variant:+.$variant}
    local dir=$out/build/$stem
    echo "== $stem: building"
    if ! build_kernel "$name" $variant >"$out/build/$stem.log" 2>&1; then
        set +e
        echo "   build failed (see $out/build/$stem.log):"
        tail -n 5 "$out/build/$stem.log" | sed 's/^/   /'
        printf 'kernel\t%s\t?\tdefault\t0\nbuild-failed\t%s\n' "$name" \
            "$(grep -m1 -i error "$out/build/$stem.log" | tr '\t' ' ')" >"$out/results/$stem.default.tsv"
        return
    fi
    set +e
    (source "$dir/env" && env | grep '^BENCH_NOT_RUN_' | sed 's/^BENCH_NOT_RUN_/   not built: /')
    for input in $("$dir/bench" --list-inputs); do
        echo "== $stem ($input): running"
        local results=$out/results/$stem.$input
        (source "$dir/env" && "$dir/bench" --input "$input" --repeats "$repeats") \
            >"$results.tsv" 2>"$results.err"
        status=$?
        [[ $status -eq 0 ]] || echo "build-failed	harness exited with status $status" >>"$results.tsv"
        if [[ -n $variant ]]; then
            sed -i "s|^kernel\t$name\t[a-z]*\t|kernel\t$name/${variant//_/-}\t${variant//_/-}\t|" "$results.tsv"
        fi
        grep '^config' "$results.tsv" | cut -f2- | sed 's/^/   /' | cut -c1-150
        # Utilization: run the instrumented program once on this input.
        if [[ -x $dir/bench-utilization ]]; then
            "$dir/bench-utilization" --input "$input" --repeats 1 --only lanewise-w8 \
                >"$results.util" 2>&1
        else
            cp "$dir/utilization.reason" "$results.util.reason" 2>/dev/null
        fi
    done
}

kernels=${BENCH_KERNELS:-$(cd bench/kernels && ls *.c | sed 's/\.c$//')}
repeats=${BENCH_REPEATS:-5}
start=$(date +%s)
for name in $kernels; do
    run_kernel "$name"
done
# The per-lane formulations of the tree kernels (comparison rows).
for name in $kernels; do
    [[ -f bench/kernels/per_lane/$name.c ]] && run_kernel "$name" per_lane
done
echo "== suite ran in $(($(date +%s) - start)) s"

python3 bench/report.py "$out" --lanewise "$LANEWISE"
