#!/usr/bin/env bash
# Times every whole program of tests/programs built by clang-22, by
# `lanewise cc` (same flags: -O3 -march=native -fopenmp-simd) and by clang-22
# with the Lanewise pass plugin (crates/plugin: `-fpass-plugin`, and
# `-fplugin` for its frontend half, liblanewise_frontend.so, when it sits
# next to the pass plugin; no other flag; crates/lanewise/tests/programs.rs and crates/plugin/tests check
# their outputs), and writes
# target/bench/programs.md with the per-program kernel times, the speedups and
# their geometric means. See bench/programs/README.md.
#
#   BENCH_REPEATS=N   kernel repetitions per run (-DBENCH=N, default 200)
#   BENCH_RUNS=K      runs per executable, in turn with the other build;
#                     the fastest counts (default 7)
#   LANEWISE=PATH     the lanewise binary (default target/release/lanewise)
#   LANEWISE_PLUGIN=PATH  the plugin (default target/release/liblanewise_plugin.so;
#                     empty: no plugin column)
set -euo pipefail
cd "$(dirname "$0")/.."

repeats=${BENCH_REPEATS:-200}
runs=${BENCH_RUNS:-7}
lanewise=${LANEWISE:-target/release/lanewise}
flags=(-O3 -march=native -fopenmp-simd "-DBENCH=$repeats")
if [[ ! -x "$lanewise" ]]; then
    echo "bench-programs: building $lanewise"
    cargo build --release -p lanewise
fi
plugin=${LANEWISE_PLUGIN-target/release/liblanewise_plugin.so}
if [[ -n "$plugin" && ! -f "$plugin" ]]; then
    echo "bench-programs: building $plugin"
    cargo build --release -p lanewise-plugin
fi
# The frontend plugin (a `declare simd` on a prototype reaches the
# definition): multi_tu_* declare their functions in a header.
frontend_flag=()
frontend=$(dirname "${plugin:-.}")/liblanewise_frontend.so
if [[ -n "$plugin" && -f "$frontend" ]]; then frontend_flag=(-fplugin="$frontend"); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p target/bench
report=target/bench/programs.md

# The kernel seconds one run of program $1 prints on stderr.
kernel_seconds_once() {
    "$1" 2>&1 >/dev/null | awk '/^lanewise-bench kernel-seconds/ { print $3 }'
}

# The smaller of two numbers ($1 when $2 is empty).
smaller() {
    if [[ -z "$2" ]] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; then
        echo "$1"
    else
        echo "$2"
    fi
}

# The fastest of $runs runs of each of the programs given, run in turn (so
# that a slow spell of the machine hits all of them): "seconds1 seconds2 ...".
fastest_alternating() {
    local best=()
    for _ in $(seq "$runs"); do
        for k in $(seq 0 $(($# - 1))); do
            local program=${*:$((k + 1)):1}
            best[k]=$(smaller "$(kernel_seconds_once "$program")" "${best[k]:-}")
        done
    done
    echo "${best[*]}"
}

{
    echo "# Whole programs: clang-22 vs lanewise cc"
    echo
    echo "Flags: \`${flags[*]}\`; kernel time is the fastest of $runs runs, clang's and lanewise's in turn."
    echo
    if [[ -n "$plugin" ]]; then
        echo "The plugin column: \`clang-22 ${flags[*]} ${frontend_flag[*]} -fpass-plugin=$plugin\`."
        echo
        echo "| program | omp simd loops clang vectorizes | clang (s) | lanewise cc (s) | speedup | plugin (s) | plugin speedup |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    else
        echo "| program | omp simd loops clang vectorizes | clang (s) | lanewise cc (s) | speedup |"
        echo "| --- | ---: | ---: | ---: | ---: |"
    fi
} >"$report"

# "k of n": of the n `#pragma omp simd` loops in the sources, the k that
# clang's loop vectorizer reports vectorized in the remarks file $1 (from
# -Rpass=loop-vectorize, which names the line of the pragma or of the `for`
# right after it).
clang_vectorized_simd_loops() {
    local remarks=$1
    shift
    local pragma_lines remark_lines total=0 vectorized=0
    for source in "$@"; do
        pragma_lines=$(grep -n '#pragma omp simd' "$source" | cut -d: -f1 || true)
        remark_lines=$(grep -F "$source:" "$remarks" | grep 'remark: vectorized loop' |
            cut -d: -f2 | sort -u || true)
        for line in $pragma_lines; do
            total=$((total + 1))
            if grep -qx -e "$line" -e "$((line + 1))" <<<"$remark_lines"; then
                vectorized=$((vectorized + 1))
            fi
        done
    done
    echo "$vectorized of $total"
}

log_sum=0
plugin_log_sum=0
count=0
scalar_log_sum=0
scalar_count=0
# Programs written to exercise one transform's edge cases are tested
# (crates/lanewise/tests) but not benchmarked: they would tilt the mean
# towards that transform (flat_image_rows: the likely strides of quotients
# and remainders in widen/dynamic.rs, 2.7x faster with them).
not_benchmarked=" narrowed_lanes flat_image_rows "
for entry in tests/programs/*; do
    name=$(basename "$entry")
    name=${name%.*}
    if [[ "$not_benchmarked" == *" $name "* ]]; then
        continue
    fi
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
    "$clang" "${flags[@]}" -Wno-pass-failed -Rpass=loop-vectorize "${sources[@]}" \
        -o "$work/$name.clang" -lm 2>"$work/$name.remarks"
    "$lanewise" "$driver" "${flags[@]}" "${sources[@]}" -o "$work/$name.lanewise" -lm
    programs=("$work/$name.clang" "$work/$name.lanewise")
    if [[ -n "$plugin" ]]; then
        "$clang" "${flags[@]}" -Wno-pass-failed "${frontend_flag[@]}" -fpass-plugin="$plugin" \
            "${sources[@]}" -o "$work/$name.plugin" -lm
        programs+=("$work/$name.plugin")
    fi
    read -r reference vectorized plugged < <(fastest_alternating "${programs[@]}")
    speedup=$(awk -v a="$reference" -v b="$vectorized" 'BEGIN { printf "%.3f", a / b }')
    log_sum=$(awk -v s="$log_sum" -v x="$speedup" 'BEGIN { printf "%.9f", s + log(x) }')
    plugin_cells=""
    if [[ -n "$plugin" ]]; then
        plugin_speedup=$(awk -v a="$reference" -v b="$plugged" 'BEGIN { printf "%.3f", a / b }')
        plugin_log_sum=$(awk -v s="$plugin_log_sum" -v x="$plugin_speedup" \
            'BEGIN { printf "%.9f", s + log(x) }')
        plugin_cells=$(printf ' %.6f | %sx |' "$plugged" "$plugin_speedup")
    fi
    count=$((count + 1))
    clang_loops=$(clang_vectorized_simd_loops "$work/$name.remarks" "${sources[@]}")
    if [[ "$clang_loops" == "0 of "* ]]; then
        scalar_log_sum=$(awk -v s="$scalar_log_sum" -v x="$speedup" 'BEGIN { printf "%.9f", s + log(x) }')
        scalar_count=$((scalar_count + 1))
    fi
    printf '| %s | %s | %.6f | %.6f | %sx |%s\n' "$name" "$clang_loops" "$reference" "$vectorized" \
        "$speedup" "$plugin_cells" >>"$report"
    echo "bench-programs: $name ${speedup}x (clang vectorizes $clang_loops omp simd loops)"
done
geomean=$(awk -v s="$log_sum" -v n="$count" 'BEGIN { printf "%.3f", exp(s / n) }')
scalar_geomean=$(awk -v s="$scalar_log_sum" -v n="$scalar_count" \
    'BEGIN { if (n > 0) printf "%.3f", exp(s / n); else print "n/a" }')
verdict=$(awk -v g="$scalar_geomean" 'BEGIN { print (g + 0 >= 4) ? "met" : "NOT met" }')
{
    echo
    echo "Geometric mean speedup over all $count programs: **${geomean}x**"
    if [[ -n "$plugin" ]]; then
        echo
        echo "With the plugin instead of \`lanewise cc\`: **$(awk -v s="$plugin_log_sum" -v n="$count" \
            'BEGIN { printf "%.3f", exp(s / n) }')x**"
    fi
    echo
    echo "Over the $scalar_count programs whose omp simd loops clang leaves all scalar:" \
        "**${scalar_geomean}x** (target 4x: $verdict)"
    echo
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
        "$(grep -qw avx512f /proc/cpuinfo && echo 'AVX-512 (lanewise picks W=32 for 32-bit lanes: two zmm registers per value)' || echo 'AVX2');" \
        "$(clang-22 --version | head -1); $(date -u '+%Y-%m-%d')"
} >>"$report"
echo "bench-programs: geometric mean ${geomean}x over $count programs," \
    "${scalar_geomean}x over the $scalar_count clang leaves scalar; wrote $report"
if [[ -n "$plugin" ]]; then
    echo "bench-programs: with the plugin: $(awk -v s="$plugin_log_sum" -v n="$count" \
        'BEGIN { printf "%.3f", exp(s / n) }')x"
fi
