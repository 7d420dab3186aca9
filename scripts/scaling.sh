#!/usr/bin/env bash
# How Lanewise's passes scale with function size (issue 18: partial
# linearization is linear time, PLDI'18). Generates one `declare simd`
# function of K sections, each a divergent if/else, a divergent loop with an
# early exit and a uniform branch, for K = SMALL and K = 10 * SMALL; runs
# `lanewise --time-passes` on each (clang-22 -O1 output, all eight x86
# variants), and prints each pass's time at both sizes and the ratio, for
# the passes that took at least 1 ms on the large function. A linear pass
# takes about 10x as long; the issue asks at most 12x for Lanewise's own
# passes. Times are the fastest of RUNS runs (default 3) of the whole tool.
#
#   SMALL=K   sections of the small function (default 20)
#   RUNS=N    runs per size (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${SMALL:-20}
runs=${RUNS:-3}
bash scripts/setup.sh >/dev/null
cargo build --release -p lanewise >/dev/null 2>&1 ||
    { echo "scaling: cargo build --release failed" >&2; exit 1; }
lanewise=$PWD/target/release/lanewise
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The C source of a function with $1 sections.
generate() {
    local sections=$1
    echo "#pragma omp declare simd uniform(limit)"
    echo "float sections(float x, int n, int limit) {"
    echo "    float acc = 0.0f;"
    for ((s = 0; s < sections; s++)); do
        cat <<EOF
    if (x > $s.5f) acc += x * $((s % 7 + 1)).0f; else acc -= x * 0.25f;
    for (int k = 0; k < n; k++) {
        if (acc > $((s * 3 + 10)).0f) break;
        acc += (k & 1) ? 0.5f : x;
    }
    if (limit > $s) acc = acc * 0.5f + $s.0f;
EOF
    done
    echo "    return acc;"
    echo "}"
}

# Each pass's fastest time (seconds) over the runs, as "pass<TAB>seconds".
pass_times() {
    local input=$1
    for ((run = 0; run < runs; run++)); do
        "$lanewise" "$input" -o "$out/out.ll" --time-passes 2>&1 >/dev/null |
            sed -n '/^===== Lanewise pass times/,/ total$/p' |
            awk '/^ *[0-9.]+ +[0-9.]+% +[0-9]+ +/ {
                pass = $4; for (i = 5; i <= NF; i++) pass = pass " " $i
                printf "%s\t%s\n", pass, $1 }
                / total$/ { printf "total\t%s\n", $1 }'
    done | awk -F'\t' '!($1 in best) || $2 < best[$1] { best[$1] = $2 }
        END { for (pass in best) printf "%s\t%s\n", pass, best[pass] }' | sort
}

large=$((small * 10))
for size in "$small" "$large"; do
    generate "$size" >"$out/f$size.c"
    clang-22 -O1 -fopenmp-simd -S -emit-llvm "$out/f$size.c" -o "$out/f$size.ll"
    pass_times "$out/f$size.ll" >"$out/times$size"
done

echo "scaling: one declare-simd function of $small and $large sections (x10 code), fastest of $runs runs;" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf "  %-40s %10s %10s %7s\n" pass "K=$small (s)" "K=$large (s)" ratio
join -t $'\t' "$out/times$small" "$out/times$large" |
    awk -F'\t' '$3 >= 0.001 { printf "  %-40s %10.4f %10.4f %6.1fx\n", $1, $2, $3, ($2 > 0 ? $3 / $2 : 0) }' |
    sort -t x -k1,1
