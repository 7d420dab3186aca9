#!/usr/bin/env bash
# Compile time of Lanewise against clang-22 (issue 18): every C/C++ source of
# tests/programs and bench/kernels compiled to an object file by
#   clang        clang-22 -O3 -march=native -fopenmp-simd -c
#   plugin       the same with -fpass-plugin=liblanewise_plugin.so (no
#                other flag: README, "the pass plugin")
#   plugin, referenced variants   the same with LANEWISE_VARIANTS=referenced
#                (only the variants the file itself calls)
#   plugin, step-1 flags   the plugin with `lanewise cc`'s step-1 flags,
#                which the plugin no longer needs; they also turn LLVM's
#                own vectorizers and unroller off for the whole file
#   lanewise cc  lanewise cc -O3 -march=native -fopenmp-simd -c
# Each file is compiled RUNS times per configuration, in turn, and the
# fastest time counts; prints the sums and their ratios to clang's sum
# (wall time of the compiler process, so run it on a quiet machine). Then
# compiles each file once more with the plugin and LANEWISE_TIME_PASSES=1
# and prints where Lanewise's share went: the sum of each pass's row over
# the files (the plugin's `--time-passes` table).
#
#   RUNS=N   runs per file and configuration (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
bash scripts/setup.sh >/dev/null
cargo build --release -p lanewise -p lanewise-plugin >/dev/null 2>&1 ||
    { echo "compile-time: cargo build --release failed" >&2; exit 1; }
plugin=$PWD/target/release/liblanewise_plugin.so
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

declare -A total=([clang]=0 [plugin]=0 [referenced]=0 [cc]=0 [step1]=0)
files=0
for source in tests/programs/*.c tests/programs/*.cpp bench/kernels/*.c; do
    [[ -f $source ]] || continue
    case $source in
    *.cpp) clang=clang++-22 cc=(c++) ;;
    *) clang=clang-22 cc=(cc) ;;
    esac
    declare -A best=([clang]=0 [plugin]=0 [referenced]=0 [cc]=0 [step1]=0)
    for ((run = 0; run < runs; run++)); do
        times=(
            "$(micros "$clang" "${common[@]}" "$source" -o "$out/a.o")"
            "$(micros "$clang" "${common[@]}" -fpass-plugin="$plugin" "$source" -o "$out/b.o")"
            "$(LANEWISE_VARIANTS=referenced micros "$clang" "${common[@]}" \
                -fpass-plugin="$plugin" "$source" -o "$out/d.o")"
            "$(micros "$lanewise" "${cc[@]}" "${common[@]}" "$source" -o "$out/c.o")"
            "$(micros "$clang" "${common[@]}" "${step1[@]}" -fpass-plugin="$plugin" "$source" -o "$out/e.o")"
        )
        if [[ " ${times[*]} " == *" failed "* ]]; then
            echo "compile-time: $source does not compile in every configuration (${times[*]})" >&2
            exit 1
        fi
        for config in 0 1 2 3 4; do
            name=$(echo clang plugin referenced cc step1 | cut -d' ' -f$((config + 1)))
            time=${times[$config]}
            if ((best[$name] == 0 || time < best[$name])); then best[$name]=$time; fi
        done
    done
    for name in clang plugin referenced cc step1; do total[$name]=$((total[$name] + best[$name])); done
    files=$((files + 1))
done

awk -v files="$files" -v runs="$runs" -v clang="${total[clang]}" -v plugin="${total[plugin]}" \
    -v referenced="${total[referenced]}" -v cc="${total[cc]}" -v step1="${total[step1]}" -v machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
    'BEGIN {
        printf "compile-time: %d sources (tests/programs, bench/kernels), fastest of %d runs each; %s\n", files, runs, machine
        printf "  clang-22 -O3          %7.2f s  1.00x\n", clang / 1e6
        printf "  clang-22 + plugin     %7.2f s  %.2fx\n", plugin / 1e6, plugin / clang
        printf "    LANEWISE_VARIANTS=referenced  %7.2f s  %.2fx\n", referenced / 1e6, referenced / clang
        printf "    with lanewise cc step-1 flags  %7.2f s  %.2fx\n", step1 / 1e6, step1 / clang
        printf "  lanewise cc           %7.2f s  %.2fx\n", cc / 1e6, cc / clang
    }'

# Where the plugin's time goes: every file's pass table, summed by pass.
for source in tests/programs/*.c tests/programs/*.cpp bench/kernels/*.c; do
    [[ -f $source ]] || continue
    case $source in
    *.cpp) clang=clang++-22 ;;
    *) clang=clang-22 ;;
    esac
    LANEWISE_TIME_PASSES=1 "$clang" "${common[@]}" -fpass-plugin="$plugin" \
        "$source" -o "$out/b.o" 2>&1 >/dev/null | sed -n '/^===== Lanewise pass times/,/ total$/p'
done | awk '
    /^ *[0-9.]+ +[0-9.]+% +[0-9]+ +/ {
        pass = $4; for (i = 5; i <= NF; i++) pass = pass " " $i
        seconds[pass] += $1; runs[pass] += $3
    }
    END { for (pass in seconds) printf "%.4f %d %s\n", seconds[pass], runs[pass], pass }' |
    sort -k1,1 -rn | awk -v clang="${total[clang]}" '
    { seconds[NR] = $1; runs[NR] = $2; pass[NR] = $3; for (i = 4; i <= NF; i++) pass[NR] = pass[NR] " " $i; sum += $1 }
    END {
        printf "plugin: Lanewise passes summed over the files: %.2f s, %.0f%% of clang-22 -O3 alone\n", sum, 100 * sum / (clang / 1e6)
        for (i = 1; i <= NR; i++) printf "  %8.3f s  %5.1f%%  %6d runs  %s\n", seconds[i], 100 * seconds[i] / sum, runs[i], pass[i]
    }'
