#!/usr/bin/env python3
"""Turns the harness output of scripts/bench.sh into the report.

Reads target/bench/results/NAME.INPUT.tsv (the lines bench/harness/harness.h
prints) and NAME.INPUT.util / .util.reason (utilization), and writes
report.md, report.json and speedup.svg next to them. Standard library only.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys

CONFIGS = ["scalar", "clang-omp", "gcc", "lanewise-w8", "lanewise-w16", "lanewise-full", "hand"]
COLORS = {
    "scalar": "#9e9e9e",
    "clang-omp": "#1f77b4",
    "gcc": "#2ca02c",
    "lanewise-w8": "#d62728",
    "lanewise-w16": "#ff7f0e",
    "lanewise-full": "#9467bd",
    "hand": "#17becf",
}
TARGETS = {"coherent": 4.0, "irregular": 2.0}
# Rows outside the targets: the per-lane formulations of the tree kernels
# (bench/kernels/per_lane), shown next to their PLDI'18-model versions.
COMPARISON_CLASS = "per-lane"
# Kernels that walk a tree: full linearization should lose against partial there.
TREE_KERNELS = {"bt", "nn", "pc", "mpc", "barnes_hut", "bvh"}


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_description(lanewise):
    model, flags = "unknown", ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags") and not flags:
                    flags = line.split(":", 1)[1]
    except OSError:
        pass
    flag_set = set(flags.split())
    git_commit = command_output(["git", "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "status", "--porcelain", "--untracked-files=no"])
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "avx2": "avx2" in flag_set,
        "avx512f": "avx512f" in flag_set,
        "kernel": platform.release(),
        "clang": command_output(["clang-22", "--version"]).splitlines()[0:1],
        "gcc": command_output(["gcc", "--version"]).splitlines()[0:1],
        "lanewise": command_output([lanewise, "--version"]),
        "commit": git_commit + (" (work tree has uncommitted changes)" if dirty else ""),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def parse_utilization(results_dir, stem):
    """Returns (value in [0,1] or None, note)."""
    reason_path = os.path.join(results_dir, stem + ".util.reason")
    util_path = os.path.join(results_dir, stem + ".util")
    if os.path.exists(util_path):
        text = open(util_path, errors="replace").read()
        # Contract (bench/README.md): the instrumented program prints lines
        # containing "utilization" and a fraction (0.73) or a percentage (73%).
        values = []
        for line in text.splitlines():
            if "utilization" not in line.lower():
                continue
            # `lanewise utilization 0.2991 (A active lanes of S slots)`, or
            # a number at the end of the line.
            match = re.search(r"utilization\s+([0-9]*\.?[0-9]+)\s*(%?)", line, re.IGNORECASE)
            match = match or re.search(r"([0-9]*\.?[0-9]+)\s*(%?)\s*$", line)
            if match:
                value = float(match.group(1))
                values.append(value / 100 if match.group(2) or value > 1 else value)
        if values:
            return sum(values) / len(values), "from lanewise --instrument-utilization"
        return None, "instrumented program printed no utilization line"
    if os.path.exists(reason_path):
        return None, open(reason_path).read().strip() or "no instrumented build"
    return None, "not measured"


def read_results(results_dir):
    kernels = []
    for file_name in sorted(os.listdir(results_dir)):
        if not file_name.endswith(".tsv"):
            continue
        stem = file_name[: -len(".tsv")]
        entry = {"name": None, "class": "?", "input": "default", "items": 0,
                 "times_ms": {}, "min_ms": {}, "speedup": {}, "status": {}}
        for line in open(os.path.join(results_dir, file_name), errors="replace"):
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "kernel" and len(fields) >= 5:
                entry.update(name=fields[1], **{"class": fields[2]}, input=fields[3],
                             items=int(fields[4]))
            elif fields[0] == "config" and len(fields) >= 4:
                config, state = fields[1], fields[2]
                if state == "ok":
                    entry["times_ms"][config] = float(fields[3])
                    entry["min_ms"][config] = float(fields[4])
                    entry["status"][config] = "ok: " + fields[5]
                elif state == "not-run":
                    entry["status"][config] = fields[3]
                else:
                    entry["status"][config] = "failed: " + fields[3]
            elif fields[0] == "build-failed":
                entry["status"]["*"] = "build failed: " + " ".join(fields[1:])
        if entry["name"] is None:
            entry["name"] = stem.split(".")[0]
        scalar = entry["times_ms"].get("scalar")
        for config in CONFIGS:
            if config not in entry["status"]:
                entry["status"][config] = entry["status"].get(
                    "*", "no hand-written version of this kernel (only mandelbrot, "
                    "black_scholes, bt)" if config == "hand" else "no result")
            time = entry["times_ms"].get(config)
            entry["speedup"][config] = round(scalar / time, 3) if scalar and time else None
            entry["times_ms"].setdefault(config, None)
        entry["status"].pop("*", None)
        value, note = parse_utilization(results_dir, stem)
        entry["utilization"] = value
        entry["utilization_note"] = note
        entry["label"] = entry["name"] if entry["input"] in ("default", "only") else \
            "%s (%s)" % (entry["name"], entry["input"])
        kernels.append(entry)
    order = {"coherent": 0, "irregular": 1, COMPARISON_CLASS: 2}
    kernels.sort(key=lambda k: (order.get(k["class"], 2), k["name"], k["input"]))
    return kernels


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(kernels):
    summary = {}
    for kernel_class, target in TARGETS.items():
        members = [k for k in kernels if k["class"] == kernel_class]
        names = sorted({k["name"] for k in members})
        per_config = {}
        for config in CONFIGS[1:]:
            ran = [k["speedup"][config] for k in members if k["speedup"][config]]
            per_config[config] = {"geomean": geometric_mean(ran), "ran": len(ran),
                                  "of": len(members)}
        w8 = per_config["lanewise-w8"]
        met = (w8["ran"] == len(members) and len(members) > 0 and w8["geomean"] >= target)
        summary[kernel_class] = {"kernels": names, "rows": len(members), "target": target,
                                 "per_config": per_config, "target_met": met}
    tree_rows = []
    for k in kernels:
        if k["name"] in TREE_KERNELS:
            partial, full = k["times_ms"]["lanewise-w8"], k["times_ms"]["lanewise-full"]
            tree_rows.append({"kernel": k["label"], "partial_ms": partial, "full_ms": full,
                              "full_slower": (full > partial) if partial and full else None})
    summary["full_vs_partial_on_trees"] = tree_rows
    # Per-lane formulations against the PLDI'18-model rows of the same
    # kernels and inputs.
    per_lane = [k for k in kernels if k["class"] == COMPARISON_CLASS]
    pairs = []
    for k in per_lane:
        base = k["name"].split("/")[0]
        model = [m for m in kernels if m["class"] == "irregular" and m["name"] == base and
                 m["input"] == k["input"]]
        if model and model[0]["speedup"]["lanewise-w8"] and k["speedup"]["lanewise-w8"]:
            pairs.append((k["speedup"]["lanewise-w8"], model[0]["speedup"]["lanewise-w8"]))
    summary[COMPARISON_CLASS] = {
        "kernels": sorted({k["name"] for k in per_lane}), "rows": len(per_lane),
        "lanewise_w8_geomean": geometric_mean([p for p, _ in pairs]),
        "pldi18_model_w8_geomean": geometric_mean([m for _, m in pairs]), "pairs": len(pairs)}
    return summary


def format_time(kernel, config, reasons):
    time = kernel["times_ms"][config]
    if time is not None:
        speedup = kernel["speedup"][config]
        return "%.1f (%.2fx)" % (time, speedup) if config != "scalar" else "%.1f" % time
    status = kernel["status"][config]
    if status not in reasons:
        reasons.append(status)
    short = "failed" if status.startswith("failed") else "not run"
    return "%s [%d]" % (short, reasons.index(status) + 1)


def write_markdown(path, machine, kernels, summary):
    reasons = []
    lines = ["# Lanewise benchmark report", ""]
    lines.append("Generated by `scripts/bench.sh` on %s (how to read it: bench/README.md)." %
                 machine["date"])
    lines.append("")
    lines.append("- Machine: %s, %s cores (avx2: %s, avx512f: %s), Linux %s" % (
        machine["cpu"], machine["cores"], "yes" if machine["avx2"] else "no",
        "yes" if machine["avx512f"] else "no", machine["kernel"]))
    lines.append("- Compilers: %s; %s; %s (commit %s)" % (
        "".join(machine["clang"]), "".join(machine["gcc"]), machine["lanewise"],
        machine["commit"]))
    lines.append("- Flags: `-O3 -march=native -ffp-contract=off` everywhere; clang omp and gcc "
                 "add `-fopenmp-simd`. Times: median of the timed rounds, in ms per run of the "
                 "whole input; in parentheses the speedup over scalar.")
    lines.append("")
    header = ["kernel", "class"] + CONFIGS + ["SIMD util. (lanewise-w8)"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for kernel in kernels:
        cells = [kernel["label"], kernel["class"]]
        cells += [format_time(kernel, config, reasons) for config in CONFIGS]
        utilization = kernel["utilization"]
        cells.append("%.0f%%" % (100 * utilization) if utilization is not None else "n/a")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if reasons:
        lines.append("Configurations that did not run:")
        lines.append("")
        for index, reason in enumerate(reasons, 1):
            lines.append("%d. %s" % (index, reason.replace("|", "\\|")))
        lines.append("")
    notes = sorted({k["utilization_note"] for k in kernels if k["utilization"] is None})
    if notes:
        lines.append("SIMD utilization (PLDI'18: active lanes per block execution / width) is "
                     "n/a: " + "; ".join(notes))
        lines.append("")
    lines.append("## Summary")
    lines.append("")
    for kernel_class, target in TARGETS.items():
        data = summary[kernel_class]
        w8 = data["per_config"]["lanewise-w8"]
        geomean_text = "%.2fx over the %d of %d rows it ran" % (
            w8["geomean"], w8["ran"], w8["of"]) if w8["geomean"] else \
            "no row ran (0 of %d)" % w8["of"]
        verdict = "met" if data["target_met"] else "NOT met"
        why = ""
        if not data["target_met"]:
            if w8["ran"] < w8["of"]:
                why = " (lanewise does not vectorize %d of the %d rows yet; a row that does " \
                      "not run cannot meet the target)" % (w8["of"] - w8["ran"], w8["of"])
            elif w8["geomean"] is not None:
                why = " (geometric mean %.2fx < %.0fx)" % (w8["geomean"], target)
        lines.append("- %s kernels: lanewise W=8 over scalar, geometric mean: %s. Target %.0fx: "
                     "**%s**%s." % (kernel_class.capitalize(), geomean_text, target, verdict, why))
        others = []
        for config in CONFIGS[1:]:
            if config == "lanewise-w8":
                continue
            entry = data["per_config"][config]
            if entry["geomean"]:
                others.append("%s %.2fx (%d of %d)" % (config, entry["geomean"], entry["ran"],
                                                       entry["of"]))
        if others:
            lines.append("  Other configurations (geometric mean over the rows they ran): " +
                         ", ".join(others) + ".")
    comparison = summary[COMPARISON_CLASS]
    if comparison["pairs"]:
        lines.append("- Per-lane formulations of the tree kernels (rows `NAME/per-lane`, not in the "
                     "targets: each lane walks its own path with its own stack, the SIMD model "
                     "of clang's and GCC's clones): lanewise W=8 over scalar, geometric mean "
                     "%.2fx over %d rows; the same kernels and inputs written in PLDI'18's model "
                     "(lock-step traversal through the SPMD builtins): %.2fx." % (
                         comparison["lanewise_w8_geomean"], comparison["pairs"],
                         comparison["pldi18_model_w8_geomean"]))
    trees = summary["full_vs_partial_on_trees"]
    compared = [t for t in trees if t["full_slower"] is not None]
    if compared:
        slower = sum(1 for t in compared if t["full_slower"])
        others = ["%s (full %.1f ms, partial %.1f ms)" % (t["kernel"], t["full_ms"], t["partial_ms"])
                  for t in compared if not t["full_slower"]]
        lines.append("- Full vs partial linearization on tree kernels: full is slower on %d of "
                     "%d rows where both ran%s." % (
                         slower, len(compared),
                         "; not on " + ", ".join(others) if others else ""))
    else:
        lines.append("- Full vs partial linearization on tree kernels: not measured (neither "
                     "runs on the tree kernels yet; see the reasons above).")
    lines.append("")
    lines.append("![speedups over scalar](speedup.svg)")
    lines.append("")
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


def escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def write_svg(path, kernels, machine):
    """Horizontal grouped bars, log2 speedup axis, one group per kernel row."""
    configs = CONFIGS[1:]
    bar, gap, label_width, plot_width, top = 7, 10, 190, 640, 60
    group = bar * len(configs) + gap
    height = top + group * len(kernels) + 70
    width = label_width + plot_width + 40
    low, high = -3.0, 5.0  # log2 axis: 1/8x .. 32x

    def x_of(speedup):
        value = min(max(math.log2(speedup), low), high)
        return label_width + (value - low) / (high - low) * plot_width

    parts = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="11">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="20" font-size="14">Speedup over scalar clang-22 -O3 (log scale; '
             'bars absent where a configuration did not run)</text>',
             '<text x="10" y="38" fill="#555">%s</text>' % escape(
                 "%s, %s cores, %s" % (machine["cpu"], machine["cores"], machine["date"]))]
    bottom = top + group * len(kernels)
    for exponent in range(int(low), int(high) + 1):
        x = x_of(2.0 ** exponent)
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>' % (
            x, top - 5, x, bottom, "#000" if exponent == 0 else "#ddd"))
        label = "%gx" % (2.0 ** exponent)
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
            x, bottom + 14, label))
    for row, kernel in enumerate(kernels):
        y0 = top + row * group
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (
            label_width - 6, y0 + group / 2, escape(kernel["label"])))
        for index, config in enumerate(configs):
            speedup = kernel["speedup"][config]
            if not speedup:
                continue
            y = y0 + index * bar
            x1, x2 = x_of(1.0), x_of(speedup)
            parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s">'
                         '<title>%s %s: %.2fx</title></rect>' % (
                             min(x1, x2), y, max(abs(x2 - x1), 0.5), bar - 1, COLORS[config],
                             escape(kernel["label"]), config, speedup))
    legend_y = bottom + 34
    for index, config in enumerate(configs):
        x = label_width + index * 105
        parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (
            x, legend_y, COLORS[config]))
        parts.append('<text x="%d" y="%d">%s</text>' % (x + 14, legend_y + 9, config))
    parts.append("</svg>")
    with open(path, "w") as handle:
        handle.write("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--lanewise", default="lanewise")
    arguments = parser.parse_args()
    results_dir = os.path.join(arguments.out_dir, "results")
    machine = machine_description(arguments.lanewise)
    kernels = read_results(results_dir)
    summary = summarize(kernels)
    write_markdown(os.path.join(arguments.out_dir, "report.md"), machine, kernels, summary)
    with open(os.path.join(arguments.out_dir, "report.json"), "w") as handle:
        json.dump({"machine": machine, "configs": CONFIGS,
                   "kernels": [{key: k[key] for key in (
                       "name", "input", "class", "items", "times_ms", "min_ms", "speedup",
                       "status", "utilization", "utilization_note")} for k in kernels],
                   "summary": summary}, handle, indent=1)
    write_svg(os.path.join(arguments.out_dir, "speedup.svg"), kernels, machine)
    print(open(os.path.join(arguments.out_dir, "report.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
