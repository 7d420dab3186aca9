#!/usr/bin/env bash
# The OpenCL benchmark: every program of tests/opencl, timed (LW_BENCH=1:
# the median of 7 runs of its kernel launches, after a warm-up) on
# Lanewise, on Lanewise with vectorization off (LANEWISE_OPENCL_VECTORIZE=
# off: work-item by work-item) and on PoCL when it is installed; the same
# host binary, the platform chosen by name, results checked by the program.
# Writes target/bench/opencl.md and target/bench/opencl.json.
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
    printf '%s\t%s\t%s\t%s\n' "$name" "$lanewise" "$scalar" "$pocl" >>"$results"
    echo "bench-opencl: $name lanewise ${lanewise}s scalar ${scalar}s pocl ${pocl:-n/a}s" >&2
done
python3 - "$results" "$out/../opencl.md" "$out/../opencl.json" <<'PY'
import json, math, subprocess, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
date = subprocess.run(["date", "-u", "+%Y-%m-%d"], capture_output=True, text=True).stdout.strip()
md = ["# OpenCL programs: Lanewise vs PoCL", "",
      f"Machine: {cpu}, {cores} cores; {date}. Median of 7 timed runs of each program's kernel launches "
      "(enqueue to clFinish) after a warm-up run; every run's results checked by the program.", "",
      "| program | Lanewise (ms) | Lanewise, no vectorization (ms) | PoCL (ms) | vectorization brings | Lanewise vs PoCL |",
      "|---|---|---|---|---|---|"]
speedups, gains, data = [], [], []
for name, lw, scalar, pocl in rows:
    lw, scalar = float(lw), float(scalar)
    pocl = float(pocl) if pocl else None
    gain = scalar / lw
    gains.append(gain)
    versus = f"{pocl / lw:.2f}x" if pocl else "n/a"
    if pocl:
        speedups.append(pocl / lw)
    md.append(f"| {name} | {lw * 1e3:.2f} | {scalar * 1e3:.2f} | {pocl * 1e3:.2f} | {gain:.2f}x | {versus} |" if pocl
              else f"| {name} | {lw * 1e3:.2f} | {scalar * 1e3:.2f} | n/a | {gain:.2f}x | n/a |")
    data.append({"program": name, "lanewise_s": lw, "lanewise_scalar_s": scalar, "pocl_s": pocl})
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
md += ["", f"Geometric mean: vectorization brings {geo(gains):.2f}x; Lanewise is {geo(speedups):.2f}x PoCL's speed "
       f"({sum(s >= 1 for s in speedups)} of {len(speedups)} programs at least as fast)."]
open(sys.argv[2], "w").write("\n".join(md) + "\n")
json.dump({"machine": cpu, "cores": cores, "date": date, "programs": data}, open(sys.argv[3], "w"), indent=1)
print("\n".join(md))
PY
