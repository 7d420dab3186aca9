#!/usr/bin/env bash
# The OpenCL benchmark: every program of tests/opencl, timed (LW_BENCH=1:
# the median of 7 runs of its kernel launches, after a warm-up) on
# Lanewise, on Lanewise with vectorization off (LANEWISE_OPENCL_VECTORIZE=
# off: work-item by work-item) and on PoCL when it is installed; the same
# host binary, the platform chosen by name, results checked by the program.
# One more run per program measures the SIMD utilization of Lanewise's
# vector variants (LANEWISE_OPENCL_UTILIZATION=1: active lanes over lane
# slots at every block, on one thread, every region vector).
# Writes target/bench/opencl.md, target/bench/opencl.json and
# target/bench/opencl.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo build --release -p lanewise-opencl
out=target/bench/opencl
mkdir -p "$out/vendors"
echo "$(pwd)/target/release/liblanewise_opencl.so" >"$out/vendors/lanewise.icd"
have_pocl=false
if [[ -f /etc/OpenCL/vendors/pocl.icd ]]; then
    cp /etc/OpenCL/vendors/pocl.icd "$out/vendors/pocl.icd"
    have_pocl=true
fi
export OCL_ICD_VENDORS=$(pwd)/$out/vendors
results=$out/times.tsv
: >"$results"
for source in tests/opencl/*.c; do
    name=$(basename "$source" .c)
    [[ $name == errors ]] && continue
    gcc -O2 -ffp-contract=off -Itests/opencl "$source" -lOpenCL -lm -o "$out/$name"
    time_of() { grep "^time " | awk '{print $3}'; }
    lanewise=$(LW_BENCH=1 "$out/$name" Lanewise | time_of)
    scalar=$(LW_BENCH=1 LANEWISE_OPENCL_VECTORIZE=off "$out/$name" Lanewise | time_of)
    pocl=""
    if $have_pocl; then pocl=$(LW_BENCH=1 "$out/$name" "Portable Computing Language" 2>/dev/null | time_of); fi
    utilization=$(LANEWISE_OPENCL_UTILIZATION=1 LANEWISE_OPENCL_THREADS=1 LANEWISE_OPENCL_ADAPTIVE=off \
        "$out/$name" Lanewise 2>&1 | grep -o "lanewise utilization [0-9.]*" | awk '{print $3}' | tail -1)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lanewise" "$scalar" "$pocl" "$utilization" >>"$results"
    echo "bench-opencl: $name lanewise ${lanewise}s scalar ${scalar}s pocl ${pocl:-n/a}s" >&2
done
python3 - "$results" "$out/../opencl.md" "$out/../opencl.json" "$out/../opencl.svg" <<'PY'
import json, math, subprocess, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
date = subprocess.run(["date", "-u", "+%Y-%m-%d"], capture_output=True, text=True).stdout.strip()
md = ["# OpenCL programs: Lanewise vs PoCL", "",
      f"Machine: {cpu}, {cores} cores; {date}. Median of 7 timed runs of each program's kernel launches "
      "(enqueue to clFinish) after a warm-up run; every run's results checked by the program.", "",
      "SIMD utilization: the active lanes over the lane slots of Lanewise's vector variants at every "
      "block they execute (1.0 for code without divergence; a kernel that runs no vector code has none).", "",
      "| program | Lanewise (ms) | Lanewise, no vectorization (ms) | PoCL (ms) | vectorization brings | Lanewise vs PoCL | SIMD utilization |",
      "|---|---|---|---|---|---|---|"]
speedups, gains, data = [], [], []
for name, lw, scalar, pocl, *rest in rows:
    lw, scalar = float(lw), float(scalar)
    pocl = float(pocl) if pocl else None
    utilization = float(rest[0]) if rest and rest[0] else None
    gain = scalar / lw
    gains.append(gain)
    versus = f"{pocl / lw:.2f}x" if pocl else "n/a"
    if pocl:
        speedups.append(pocl / lw)
    pocl_ms = f"{pocl * 1e3:.2f}" if pocl else "n/a"
    used = f"{utilization:.2f}" if utilization is not None else "n/a"
    md.append(f"| {name} | {lw * 1e3:.2f} | {scalar * 1e3:.2f} | {pocl_ms} | {gain:.2f}x | {versus} | {used} |")
    data.append({"program": name, "lanewise_s": lw, "lanewise_scalar_s": scalar, "pocl_s": pocl,
                 "simd_utilization": utilization})
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
md += ["", f"Geometric mean: vectorization brings {geo(gains):.2f}x; Lanewise is {geo(speedups):.2f}x PoCL's speed "
       f"({sum(s >= 1 for s in speedups)} of {len(speedups)} programs at least as fast)."]
open(sys.argv[2], "w").write("\n".join(md) + "\n")
# The chart: per program, Lanewise's speed over PoCL's and what
# vectorization brings, on a log2 axis.
bar, gap, label_width, plot_width, top = 9, 8, 170, 560, 70
group = 2 * bar + gap
height = top + group * len(data) + 50
width = label_width + plot_width + 40
low, high = -3.0, 6.0
x_of = lambda ratio: label_width + (min(max(math.log2(ratio), low), high) - low) / (high - low) * plot_width
svg = ['<?xml version="1.0" encoding="UTF-8"?>',
       f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="10" y="20" font-size="14">OpenCL programs: Lanewise over PoCL (red) and over its own scalar execution (grey), log scale</text>',
       f'<text x="10" y="38" fill="#555">{cpu}, {cores} cores, {date}</text>']
bottom = top + group * len(data)
for exponent in range(int(low), int(high) + 1):
    x = x_of(2.0 ** exponent)
    svg.append(f'<line x1="{x:.1f}" y1="{top - 5}" x2="{x:.1f}" y2="{bottom}" stroke="{"#000" if exponent == 0 else "#ddd"}"/>')
    svg.append(f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">{2.0 ** exponent:g}x</text>')
for row, entry in enumerate(data):
    y = top + row * group
    svg.append(f'<text x="{label_width - 6}" y="{y + bar + 3}" text-anchor="end">{entry["program"]}</text>')
    ratios = [(entry["pocl_s"] / entry["lanewise_s"] if entry["pocl_s"] else None, "#d62728"),
              (entry["lanewise_scalar_s"] / entry["lanewise_s"], "#9e9e9e")]
    for k, (ratio, color) in enumerate(ratios):
        if ratio is None:
            continue
        x0, x1 = x_of(1.0), x_of(ratio)
        svg.append(f'<rect x="{min(x0, x1):.1f}" y="{y + k * bar}" width="{abs(x1 - x0):.1f}" height="{bar - 1}" fill="{color}"/>')
svg.append("</svg>")
open(sys.argv[4], "w").write("\n".join(svg) + "\n")
json.dump({"machine": cpu, "cores": cores, "date": date, "programs": data}, open(sys.argv[3], "w"), indent=1)
print("\n".join(md))
PY
