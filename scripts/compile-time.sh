#!/usr/bin/env bash
# Compile time of Lanewise against clang-22 (issue 18): every C/C++ source of
# tests/programs and bench/ compiled to an object file by
#   clang        clang-22 -O3 -march=native -fopenmp-simd -c
#   plugin       the same with -fplugin=liblanewise_frontend.so
#                -fpass-plugin=liblanewise_plugin.so (no other flag:
#                README, "the pass plugin")
#   plugin, referenced variants   the same with LANEWISE_VARIANTS=referenced
#                (only the variants the file itself calls)
#   plugin, step-1 flags   the plugin with `lanewise cc`'s step-1 flags,
#                which the plugin no longer needs; they also turn LLVM's
#                own vectorizers and unroller off for the whole file
#   lanewise cc  lanewise cc -O3 -march=native -fopenmp-simd -c
# The sources come in two sets, summed apart and together:
#   kernels      tests/programs and bench/kernels: each file holds declare
#                simd functions or omp simd loops, what Lanewise works on
#   rest of bench/   the benchmark drivers, the per-lane and hand-written
#                kernels, the SLP kernels (-DKERNEL(n)=n) and drivers: code
#                built with the same flags in a project that uses Lanewise,
#                most of it scalar code Lanewise only looks at
# Each file is compiled RUNS times per configuration, in turn, and the
# fastest time counts; prints the sums and their ratios to clang's sum
# (wall time of the compiler process, so run it on a quiet machine). Then
# compiles each kernels file once more with the plugin and
# LANEWISE_TIME_PASSES=1 and prints where Lanewise's share went: the sum of
# each pass's row over the files (the plugin's `--time-passes` table).
#
#   RUNS=N   runs per file and configuration (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
bash scripts/setup.sh >/dev/null
cargo build --release -p lanewise -p lanewise-plugin >/dev/null 2>&1 ||
    { echo "compile-time: cargo build --release failed" >&2; exit 1; }
plugin=$PWD/target/release/liblanewise_plugin.so
frontend=$PWD/target/release/liblanewise_frontend.so
lanewise=$PWD/target/release/lanewise
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step1=(-fno-vectorize -fno-slp-vectorize -mllvm -unroll-runtime=false
    -mllvm -unroll-allow-partial=false -mllvm -unroll-full-max-count=0)
common=(-O3 -march=native -fopenmp-simd -Wno-pass-failed -Itests/programs -Iinclude -c)

# Microseconds one command takes (its output discarded), or "failed".
micros() {
    local start end
    start=$(date +%s%N)
    if ! "$@" >/dev/null 2>&1; then
        echo failed
        return
    fi
    end=$(date +%s%N)
    echo $(((end - start) / 1000))
}

configs=(clang plugin referenced cc step1)
kernel_sources=(tests/programs/*.c tests/programs/*.cpp bench/kernels/*.c)
other_sources=(bench/drivers/*.c bench/kernels/per_lane/*.c bench/hand/*.c
    bench/slp/kernels/*.c bench/slp/driver.c bench/wfv_slp/*.c)
declare -A total
for set in kernels other; do
    for name in "${configs[@]}"; do total[$set.$name]=0; done
done
declare -A files=([kernels]=0 [other]=0)
for set in kernels other; do
    case $set in
    kernels) sources=("${kernel_sources[@]}") ;;
    other) sources=("${other_sources[@]}") ;;
    esac
    for source in "${sources[@]}"; do
        [[ -f $source ]] || continue
        case $source in
        *.cpp) clang=clang++-22 cc=(c++) ;;
        *) clang=clang-22 cc=(cc) ;;
        esac
        defines=(-Ibench/harness -Ibench/drivers -Ibench/slp)
        [[ $source == bench/slp/kernels/* ]] && defines+=("-DKERNEL(n)=n")
        declare -A best=([clang]=0 [plugin]=0 [referenced]=0 [cc]=0 [step1]=0)
        for ((run = 0; run < runs; run++)); do
            times=(
                "$(micros "$clang" "${common[@]}" "${defines[@]}" "$source" -o "$out/a.o")"
                "$(micros "$clang" "${common[@]}" "${defines[@]}" -fplugin="$frontend" -fpass-plugin="$plugin" \
                    "$source" -o "$out/b.o")"
                "$(LANEWISE_VARIANTS=referenced micros "$clang" "${common[@]}" "${defines[@]}" \
                    -fplugin="$frontend" -fpass-plugin="$plugin" "$source" -o "$out/d.o")"
                "$(micros "$lanewise" "${cc[@]}" "${common[@]}" "${defines[@]}" "$source" \
                    -o "$out/c.o")"
                "$(micros "$clang" "${common[@]}" "${defines[@]}" "${step1[@]}" \
                    -fplugin="$frontend" -fpass-plugin="$plugin" "$source" -o "$out/e.o")"
            )
            if [[ " ${times[*]} " == *" failed "* ]]; then
                echo "compile-time: $source does not compile in every configuration (${times[*]})" >&2
                exit 1
            fi
            for config in 0 1 2 3 4; do
                name=${configs[$config]}
                time=${times[$config]}
                if ((best[$name] == 0 || time < best[$name])); then best[$name]=$time; fi
            done
        done
        for name in "${configs[@]}"; do total[$set.$name]=$((total[$set.$name] + best[$name])); done
        files[$set]=$((files[$set] + 1))
    done
done

machine=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "compile-time: fastest of $runs runs per file and configuration; $machine"
# One table: the sums of a set of sources ("kernels", "other" or both).
print_sums() {  # title set...
    local title=$1 name
    shift
    declare -A sum=([clang]=0 [plugin]=0 [referenced]=0 [cc]=0 [step1]=0)
    local count=0
    for set in "$@"; do
        count=$((count + files[$set]))
        for name in "${configs[@]}"; do sum[$name]=$((sum[$name] + total[$set.$name])); done
    done
    awk -v title="$title" -v files="$count" -v clang="${sum[clang]}" -v plugin="${sum[plugin]}" \
        -v referenced="${sum[referenced]}" -v cc="${sum[cc]}" -v step1="${sum[step1]}" \
        'BEGIN {
            printf "%s (%d sources)\n", title, files
            printf "  clang-22 -O3          %7.2f s  1.00x\n", clang / 1e6
            printf "  clang-22 + plugin     %7.2f s  %.2fx\n", plugin / 1e6, plugin / clang
            printf "    LANEWISE_VARIANTS=referenced  %7.2f s  %.2fx\n", referenced / 1e6, referenced / clang
            printf "    with lanewise cc step-1 flags  %7.2f s  %.2fx\n", step1 / 1e6, step1 / clang
            printf "  lanewise cc           %7.2f s  %.2fx\n", cc / 1e6, cc / clang
        }'
}
print_sums "tests/programs and bench/ (the issue's sum)" kernels other
print_sums "kernels: tests/programs and bench/kernels" kernels
print_sums "rest of bench/ (drivers, per-lane, hand-written, SLP kernels)" other

# Where the plugin's time goes: every kernels file's pass table, summed by
# pass.
for source in "${kernel_sources[@]}"; do
    [[ -f $source ]] || continue
    case $source in
    *.cpp) clang=clang++-22 ;;
    *) clang=clang-22 ;;
    esac
    LANEWISE_TIME_PASSES=1 "$clang" "${common[@]}" -fplugin="$frontend" -fpass-plugin="$plugin" \
        "$source" -o "$out/b.o" 2>&1 >/dev/null | sed -n '/^===== Lanewise pass times/,/ total$/p'
done | awk '
    /^ *[0-9.]+ +[0-9.]+% +[0-9]+ +/ {
        pass = $4; for (i = 5; i <= NF; i++) pass = pass " " $i
        seconds[pass] += $1; runs[pass] += $3
    }
    END { for (pass in seconds) printf "%.4f %d %s\n", seconds[pass], runs[pass], pass }' |
    sort -k1,1 -rn | awk -v clang="${total[kernels.clang]}" '
    { seconds[NR] = $1; runs[NR] = $2; pass[NR] = $3; for (i = 4; i <= NF; i++) pass[NR] = pass[NR] " " $i; sum += $1 }
    END {
        printf "plugin: Lanewise passes summed over the kernels files: %.2f s, %.0f%% of clang-22 -O3 alone on them\n", sum, 100 * sum / (clang / 1e6)
        for (i = 1; i <= NR; i++) printf "  %8.3f s  %5.1f%%  %6d runs  %s\n", seconds[i], 100 * seconds[i] / sum, runs[i], pass[i]
    }'
