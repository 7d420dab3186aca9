#!/usr/bin/env bash
# Times every whole program of tests/programs built by clang-22 and by
# `lanewise cc` (same flags: -O3 -march=native -fopenmp-simd), and writes
# target/bench/programs.md with the per-program kernel times, the speedups and
# their geometric mean. See bench/programs/README.md.
#
#   BENCH_REPEATS=N   kernel repetitions per run (-DBENCH=N, default 50)
#   BENCH_RUNS=K      runs per executable, the fastest counts (default 3)
#   LANEWISE=PATH     the lanewise binary (default target/release/lanewise)
set -euo pipefail
cd "$(dirname "$0")/.."

repeats=${BENCH_REPEATS:-50}
runs=${BENCH_RUNS:-3}
lanewise=${LANEWISE:-target/release/lanewise}
flags=(-O3 -march=native -fopenmp-simd "-DBENCH=$repeats")
if [[ ! -x "$lanewise" ]]; then
    echo "bench-programs: building $lanewise"
    cargo build --release -p lanewise
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p target/bench
report=target/bench/programs.md

# The fastest of $runs runs: the kernel seconds the program prints on stderr.
kernel_seconds() {
    local best=""
    for _ in $(seq "$runs"); do
        local seconds
        seconds=$("$1" 2>&1 >/dev/null | awk '/^lanewise-bench kernel-seconds/ { print $3 }')
        if [[ -z "$best" ]] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$seconds
        fi
    done
    echo "$best"
}

{
    echo "# Whole programs: clang-22 vs lanewise cc"
    echo
    echo "Flags: \`${flags[*]}\`; kernel time is the fastest of $runs runs."
    echo
    echo "| program | clang (s) | lanewise cc (s) | speedup |"
    echo "| --- | ---: | ---: | ---: |"
} >"$report"

log_sum=0
count=0
for entry in tests/programs/*; do
    name=$(basename "$entry")
    name=${name%.*}
    if [[ -d "$entry" ]]; then
        sources=("$entry"/*.c)
    else
        case "$entry" in *.c | *.cpp) sources=("$entry") ;; *) continue ;; esac
    fi
    clang=clang-22
    driver=cc
    if [[ "${sources[0]}" == *.cpp ]]; then
        clang=clang++-22
        driver=c++
    fi
    "$clang" "${flags[@]}" -Wno-pass-failed "${sources[@]}" -o "$work/$name.clang" -lm
    "$lanewise" "$driver" "${flags[@]}" "${sources[@]}" -o "$work/$name.lanewise" -lm
    reference=$(kernel_seconds "$work/$name.clang")
    vectorized=$(kernel_seconds "$work/$name.lanewise")
    speedup=$(awk -v a="$reference" -v b="$vectorized" 'BEGIN { printf "%.3f", a / b }')
    log_sum=$(awk -v s="$log_sum" -v x="$speedup" 'BEGIN { printf "%.9f", s + log(x) }')
    count=$((count + 1))
    printf '| %s | %.6f | %.6f | %sx |\n' "$name" "$reference" "$vectorized" "$speedup" >>"$report"
    echo "bench-programs: $name ${speedup}x"
done
geomean=$(awk -v s="$log_sum" -v n="$count" 'BEGIN { printf "%.3f", exp(s / n) }')
{
    echo
    echo "Geometric mean speedup over $count programs: **${geomean}x**"
} >>"$report"
echo "bench-programs: geometric mean ${geomean}x over $count programs; wrote $report"
