#!/usr/bin/env bash
# The basic-block (SLP) vectorization benchmark (bench/slp/README.md): every
# straight-line kernel of bench/slp/kernels compiled four times, all with
# `-O3 -march=native -ffp-contract=off` and the loop vectorizers off, so that
# only the SLP vectorizer differs and results must be bit-exact:
#
#   scalar    clang-22 -fno-vectorize -fno-slp-vectorize
#   llvm-slp  clang-22 -fno-vectorize                      (LLVM's SLP vectorizer)
#   gcc-slp   gcc -fno-tree-loop-vectorize                 (GCC's basic-block SLP)
#   lanewise  lanewise cc --slp $LANEWISE_SLP -fno-vectorize
#
# then one driver process (bench/slp/driver.c) checks every build's outputs
# bit for bit against scalar's and times them; writes target/bench/slp.md and
# prints it. Exits non-zero when a build's outputs differ from scalar's (or
# it crashes), with one documented exception: GCC 12's SLP vectorizer fuses
# alternating a*b-c, a*b+c lanes into vfmaddsub/vfmsubadd even under
# -ffp-contract=off (its addsub pattern does not check the flag; later GCCs
# do). A gcc-slp mismatch on a kernel whose GCC object holds fused
# multiply-adds is reported as that bug (MISMATCH in the table, not timed)
# and does not fail the run unless BENCH_STRICT=1. A kernel lanewise fails
# to compile is n/a in its column.
#
#   BENCH_RUNS=K       timings per build and kernel, the median counts (default 9)
#   BENCH_ITEMS=N      items per kernel call (default 4096)
#   BENCH_KERNELS="a b"  a subset of the kernels (default: all)
#   LANEWISE=PATH      the lanewise binary (default target/release/lanewise)
#   LANEWISE_SLP=MODE  the value of `lanewise cc --slp` (default lanewise; empty:
#                      no --slp flag, for a lanewise without the option)
#   BENCH_STRICT=1     every mismatch fails the run, GCC's fused multiply-adds too
#
# Then the compile time of the two SLP passes on the same functions (a second
# table in the report): each kernel's scalar build as LLVM IR (the pass input)
# through `opt-22 -passes=slp-vectorizer -time-passes` (the SLPVectorizerPass
# row) and `lanewise --slp lanewise --time-passes` (the slp row, and
# lift + slp + lower + LLVM's cleanup of the changed functions), wall clock,
# the median of BENCH_COMPILE_RUNS runs. It reports only: a kernel a tool
# fails on is n/a there and does not change the exit status.
#
#   BENCH_COMPILE_TIME=0   skip the compile-time comparison
#   BENCH_COMPILE_RUNS=R   runs per tool and kernel, the median counts (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."

export BENCH_RUNS=${BENCH_RUNS:-9}
export BENCH_ITEMS=${BENCH_ITEMS:-4096}
lanewise=${LANEWISE:-target/release/lanewise}
lanewise_slp=${LANEWISE_SLP-lanewise}
read -r -a kernel_filter <<<"${BENCH_KERNELS:-}"
if [[ ! -x "$lanewise" ]]; then
    echo "bench-slp: building $lanewise"
    cargo build --release -p lanewise
fi
strict=${BENCH_STRICT:-0}
compile_time=${BENCH_COMPILE_TIME:-1}
compile_runs=${BENCH_COMPILE_RUNS:-5}
if [[ "$compile_time" != 0 ]]; then
    compile_time=1
    if [[ ! "$compile_runs" =~ ^[1-9][0-9]*$ ]]; then
        echo "bench-slp: BENCH_COMPILE_RUNS=$compile_runs is not a positive count" >&2
        exit 1
    fi
fi
tools=(clang-22 gcc objdump)
if ((compile_time)); then
    tools+=(opt-22)
fi
for tool in "${tools[@]}"; do
    if ! command -v "$tool" >/dev/null; then
        echo "bench-slp: $tool not found (bash scripts/setup.sh installs the toolchain)" >&2
        exit 1
    fi
done
if ! gcc -march=native -E -x c /dev/null -o /dev/null 2>/dev/null; then
    echo "bench-slp: $(gcc --version | head -1) does not accept -march=native" >&2
    exit 1
fi

common=(-std=c11 -O3 -march=native -ffp-contract=off -falign-functions=64 -falign-loops=64)
scalar_cmd=(clang-22 "${common[@]}" -fno-vectorize -fno-slp-vectorize)
llvm_cmd=(clang-22 "${common[@]}" -fno-vectorize)
gcc_cmd=(gcc "${common[@]}" -fno-tree-loop-vectorize)
lanewise_cmd=("$lanewise" cc)
if [[ -n "$lanewise_slp" ]]; then
    lanewise_cmd+=(--slp "$lanewise_slp")
fi
lanewise_cmd+=("${common[@]}" -fno-vectorize)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p target/bench
report=target/bench/slp.md

# Whether kernel $1 runs (BENCH_KERNELS names it, or is empty).
runs_kernel() {
    ((${#kernel_filter[@]} == 0)) || [[ " ${kernel_filter[*]} " == *" $1 "* ]]
}

# Every kernel in every build (the driver links them all; BENCH_KERNELS
# selects what it runs): objects NAME.SUFFIX.o, symbols NAME_SUFFIX.
objects=()
lanewise_failed=()
lanewise_warned=()
for source in bench/slp/kernels/*.c; do
    name=$(basename "$source" .c)
    for build in scalar llvm gcc; do
        cmd_var="${build}_cmd[@]"
        "${!cmd_var}" "-DKERNEL(n)=n##_$build" -c "$source" -o "$work/$name.$build.o"
        objects+=("$work/$name.$build.o")
    done
    log="$work/$name.lanewise.log"
    if "${lanewise_cmd[@]}" "-DKERNEL(n)=n##_lw" -c "$source" -o "$work/$name.lw.o" 2>"$log"; then
        objects+=("$work/$name.lw.o")
        if [[ -s "$log" ]] && runs_kernel "$name"; then
            lanewise_warned+=("$name: $(head -1 "$log")")
        fi
    elif runs_kernel "$name"; then
        reason=$(grep -m1 -i 'error' "$log" || head -1 "$log" || true)
        lanewise_failed+=("$name: ${reason:-no diagnostics}")
        echo "bench-slp: lanewise failed to build $name (column n/a): $reason" >&2
    fi
done
slp_unsupported=""
if ((${#lanewise_failed[@]} > 0)) && [[ -n "$lanewise_slp" ]] &&
    grep -qE -e "--slp|unexpected argument" "$work"/*.lanewise.log; then
    slp_unsupported="$lanewise cc does not accept \`--slp $lanewise_slp\` yet;"
    slp_unsupported+=" \`LANEWISE_SLP=\` builds without the flag."
    echo "bench-slp: $slp_unsupported" >&2
fi

clang-22 -std=c11 -O2 -Ibench/slp bench/slp/driver.c "${objects[@]}" -o "$work/driver" -lm

echo "bench-slp: running the driver ($BENCH_ITEMS items per call, median of $BENCH_RUNS timings)"
status=0
"$work/driver" "${kernel_filter[@]}" >"$work/table.md" 2>"$work/driver.log" || status=$?
cat "$work/driver.log" >&2
if ((status != 0 && status != 1)); then
    echo "bench-slp: the driver failed (exit status $status)" >&2
    exit "$status"
fi

# Failures (driver lines `bench-slp: MISMATCH|CRASH KERNEL BUILD: ...`): a
# gcc-slp mismatch whose object holds fused multiply-adds (which
# -ffp-contract=off forbids) is GCC's known bug; any other one fails the run.
failure_notes=()
unexplained=0
gcc_fused=0
while read -r _ kind kernel build rest; do
    build=${build%:}
    fused=""
    if [[ "$kind" == MISMATCH && "$build" == gcc-slp ]]; then
        fused=$(objdump -d --no-show-raw-insn "$work/$kernel.gcc.o" |
            grep -oE '\bvfn?m(add|sub)[a-z0-9]*' | sort | uniq -c |
            awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }' || true)
    fi
    if [[ -n "$fused" ]]; then
        note="$kind $kernel $build: $rest; GCC's object has fused multiply-adds ($fused)"
        note+=" despite -ffp-contract=off: GCC 12's SLP addsub-pattern bug"
        if ((strict)); then
            failure_notes+=("$note (a failure: BENCH_STRICT=1)")
            unexplained=$((unexplained + 1))
        else
            failure_notes+=("$note, not counted as a failure")
            gcc_fused=$((gcc_fused + 1))
        fi
    else
        failure_notes+=("$kind $kernel $build: $rest")
        unexplained=$((unexplained + 1))
    fi
done < <(grep -E '^bench-slp: (MISMATCH|CRASH) ' "$work/driver.log" || true)

# Compile time of the two SLP passes on the same functions: each kernel's
# scalar build as LLVM IR (the -O3 output without SLP: about what an SLP
# pass sees in clang's pipeline), LLVM's pass in opt and Lanewise's in
# lanewise, alternating, BENCH_COMPILE_RUNS times; per kernel the median of
# each quantity. Rows of $compile_table: kernel, then the medians in seconds
# (LLVM's SLPVectorizerPass, its TargetIRAnalysis, Lanewise's slp,
# Lanewise's lift + slp + lower + cleanup), `-` for a tool that failed.
compile_table="$work/compile.tsv"
compile_notes=()
ir_cmd=("${scalar_cmd[@]}" "-DKERNEL(n)=n" -S -emit-llvm)
llvm_slp_cmd=(opt-22 -passes=slp-vectorizer -time-passes)
lanewise_slp_cmd=("$lanewise" --slp lanewise --time-passes)

# The wall-clock seconds of the row named $1 of LLVM's -time-passes tables
# on stdin, nothing if there is none. The wall clock is the last number of a
# row: the columns before it vary (User Time is left out when it is all 0).
# (awk reads to the end: an early exit could kill sed with SIGPIPE, which
# pipefail and set -e would turn into the end of the script.)
llvm_wall() {
    sed -E 's/\( *[0-9.]+%\)//g' |
        awk -v name="$1" '!found && $NF == name && NF >= 2 && $(NF - 1) ~ /^[0-9.]+$/ { print $(NF - 1); found = 1 }'
}

# From lanewise's --time-passes table on stdin (rows `seconds share runs
# pass`, the pass name may hold spaces): the slp row's seconds and the sum
# of lift, slp, lower and LLVM's cleanup pipeline (a missing row is 0: a
# function the pass leaves alone is neither lowered nor cleaned up). Fails
# without an slp row.
lanewise_times() {
    awk '/^===== Lanewise pass times/ { on = 1; next }
        on && NF >= 4 && $1 ~ /^[0-9.]+$/ {
            pass = $4
            for (i = 5; i <= NF; i++) pass = pass " " $i
            t[pass] = $1
        }
        END {
            if (!("slp" in t)) exit 1
            printf "%s %.4f\n", t["slp"], t["lift"] + t["slp"] + t["lower"] + t["llvm: cleanup pipeline"]
        }'
}

# The median of column $2 of the numbers in file $1.
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.6f", v[(NR + 1) / 2]; else printf "%.6f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if ((compile_time)); then
    echo "bench-slp: timing LLVM's and Lanewise's SLP passes (median of $compile_runs runs per kernel)"
    : >"$compile_table"
    # The kernels in the order of the table above (kernels.h's), then any
    # other source.
    compile_kernels=()
    while read -r name; do
        if [[ -f "bench/slp/kernels/$name.c" ]]; then
            compile_kernels+=("$name")
        fi
    done < <(awk -F'|' 'NF > 2 { gsub(/ /, "", $2); print $2 }' "$work/table.md")
    for source in bench/slp/kernels/*.c; do
        name=$(basename "$source" .c)
        if [[ " ${compile_kernels[*]} " != *" $name "* ]]; then
            compile_kernels+=("$name")
        fi
    done
    for name in "${compile_kernels[@]}"; do
        source="bench/slp/kernels/$name.c"
        runs_kernel "$name" || continue
        ir="$work/$name.ll"
        if ! "${ir_cmd[@]}" "$source" -o "$ir" 2>"$work/$name.ir.log"; then
            compile_notes+=("$name: clang-22 -S -emit-llvm failed: $(head -1 "$work/$name.ir.log")")
            echo "$name - - - -" >>"$compile_table"
            continue
        fi
        llvm_times="$work/$name.llvm.times"
        lanewise_times_file="$work/$name.lanewise.times"
        : >"$llvm_times"
        : >"$lanewise_times_file"
        llvm_error=""
        lanewise_error=""
        for ((run = 0; run < compile_runs; run++)); do
            if [[ -z "$llvm_error" ]]; then
                log="$work/$name.opt.log"
                if "${llvm_slp_cmd[@]}" "$ir" -o /dev/null 2>"$log"; then
                    slp=$(llvm_wall SLPVectorizerPass <"$log")
                    tti=$(llvm_wall TargetIRAnalysis <"$log")
                    if [[ -n "$slp" ]]; then
                        echo "$slp ${tti:-0}" >>"$llvm_times"
                    else
                        llvm_error="no SLPVectorizerPass row in opt-22's -time-passes output"
                    fi
                else
                    llvm_error="opt-22 failed: $(head -1 "$log")"
                fi
            fi
            if [[ -z "$lanewise_error" ]]; then
                log="$work/$name.lanewise-time.log"
                if "${lanewise_slp_cmd[@]}" "$ir" -o "$work/$name.lanewise-slp.ll" 2>"$log"; then
                    lanewise_times <"$log" >>"$lanewise_times_file" ||
                        lanewise_error="no slp row in lanewise's --time-passes output"
                else
                    lanewise_error="lanewise failed: $(grep -m1 -i 'error' "$log" || head -1 "$log" || true)"
                fi
            fi
        done
        row="$name"
        if [[ -n "$llvm_error" ]]; then
            compile_notes+=("$name LLVM: $llvm_error")
            row+=" - -"
        else
            row+=" $(median "$llvm_times" 1) $(median "$llvm_times" 2)"
        fi
        if [[ -n "$lanewise_error" ]]; then
            compile_notes+=("$name Lanewise: $lanewise_error")
            echo "bench-slp: compile time of $name: $lanewise_error" >&2
            row+=" - -"
        else
            row+=" $(median "$lanewise_times_file" 1) $(median "$lanewise_times_file" 2)"
        fi
        echo "$row" >>"$compile_table"
    done
fi

# The compile-time table in markdown, from $compile_table: milliseconds,
# ratios Lanewise / LLVM, totals over the kernels both tools timed, then the
# share of TargetIRAnalysis in LLVM's total.
compile_markdown() {
    echo "| kernel | LLVM SLPVectorizerPass ms | Lanewise slp ms | ratio | Lanewise lift+slp+lower+cleanup ms | ratio |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    awk '
        function ms(s) { return s == "-" ? "n/a" : sprintf("%.2f", 1000 * s) }
        function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "n/a" : sprintf("%.2fx", a / b) }
        {
            printf "| %s | %s | %s | %s | %s | %s |\n", $1, ms($2), ms($4), ratio($4, $2), ms($5), ratio($5, $2)
            if ($2 != "-" && $4 != "-") { n++; llvm += $2; tti += $3; slp += $4; all += $5 }
        }
        END {
            if (n == 0) exit
            printf "| total (%d kernels) | %.2f | %.2f | %s | %.2f | %s |\n", n, 1000 * llvm, 1000 * slp,
                ratio(slp, llvm), 1000 * all, ratio(all, llvm)
            share = llvm > 0 ? 100 * tti / llvm : 0
            printf "\nOf LLVM'"'"'s %.2f ms, %.2f ms (%.0f%%) is TargetIRAnalysis, which the pass requests first\n", 1000 * llvm, 1000 * tti, share
            printf "(building the x86 subtarget, once per process; in clang an earlier pass pays it).\n"
        }' "$compile_table"
}

version() { "$@" --version 2>&1 | head -1; }
{
    echo "# Basic-block (SLP) vectorization: LLVM, GCC and Lanewise against scalar"
    echo
    echo "Straight-line kernels of bench/slp (README there), $BENCH_ITEMS items per call;" \
        "each cell the median of $BENCH_RUNS timings (thread CPU time, builds in turn)."
    echo "Outputs of every build are checked bit for bit against the scalar build before timing."
    echo
    echo "| build | command |"
    echo "| --- | --- |"
    echo "| scalar | \`${scalar_cmd[*]}\` |"
    echo "| llvm-slp | \`${llvm_cmd[*]}\` |"
    echo "| gcc-slp | \`${gcc_cmd[*]}\` |"
    echo "| lanewise | \`${lanewise_cmd[*]}\` |"
    echo
    echo "Columns: scalar ns per item, then each build's speedup over scalar (scalar time / build time)."
    echo
    cat "$work/table.md"
    if ((${#lanewise_failed[@]} > 0)); then
        echo
        echo "lanewise n/a (\`lanewise cc\` failed on the kernel):"
        if [[ -n "$slp_unsupported" ]]; then
            echo "$slp_unsupported"
        fi
        echo
        for line in "${lanewise_failed[@]}"; do
            echo "- $line"
        done
    fi
    if ((${#lanewise_warned[@]} > 0)); then
        echo
        echo "\`lanewise cc\` diagnostics (first line per kernel):"
        echo
        for line in "${lanewise_warned[@]}"; do
            echo "- $line"
        done
    fi
    if ((${#failure_notes[@]} > 0)); then
        echo
        echo "Outputs that differ from scalar's (first differing element):"
        echo
        for line in "${failure_notes[@]}"; do
            echo "- $line"
        done
    fi
    if ((compile_time)); then
        echo
        echo "## Compile time: Lanewise's SLP pass against LLVM's"
        echo
        echo "The same functions (each kernel's scalar build as LLVM IR:" \
            "\`${ir_cmd[*]} -o K.ll K.c\`) through" \
            "\`${llvm_slp_cmd[*]} K.ll -o /dev/null\` (its SLPVectorizerPass row, with the analyses the pass requests)" \
            "and \`${lanewise_slp_cmd[*]} K.ll -o K.out.ll\`" \
            "(its slp row, the pass alone; then lift + slp + lower + llvm: cleanup pipeline," \
            "the pass with its translation from and back to LLVM IR and LLVM's cleanup of the functions it changed:" \
            "what it adds to a compilation)."
        echo "Wall clock, the median of $compile_runs runs per kernel (the two tools alternate);" \
            "ratio: Lanewise's time / LLVM's (above 1: Lanewise is slower)." \
            "Both tools print 0.1 ms steps."
        echo
        compile_markdown
        if ((${#compile_notes[@]} > 0)); then
            echo
            echo "n/a (the tool failed on the kernel):"
            echo
            for line in "${compile_notes[@]}"; do
                echo "- $line"
            done
        fi
    fi
    echo
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
        "(family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
        "clang -march=native: $(clang-22 -march=native -### -c -x c /dev/null 2>&1 |
            grep -o '"-target-cpu" "[^"]*"' | cut -d'"' -f4)," \
        "gcc: $(gcc -march=native -Q --help=target 2>/dev/null | awk '$1 == "-march=" { print $2 }')," \
        "$(grep -qw avx512f /proc/cpuinfo && echo 'AVX-512' || echo 'AVX2')), $(nproc) cores;" \
        "$(version clang-22); $(version gcc); $(version "$lanewise"); $(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$report"
cat "$report"
echo
if ((unexplained > 0)); then
    echo "bench-slp: FAILED: $unexplained build(s) of kernels differ from the scalar build" \
        "(or crashed); wrote $report" >&2
    exit 1
fi
if ((gcc_fused > 0)); then
    echo "bench-slp: $gcc_fused gcc-slp build(s) fuse multiply-adds despite" \
        "-ffp-contract=off (GCC's bug, see the report); everything else matches scalar"
fi
echo "bench-slp: wrote $report"
