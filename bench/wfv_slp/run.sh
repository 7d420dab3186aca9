#!/usr/bin/env bash
# Builds and runs bench/wfv_slp/wfv_slp.c (see its header): whether the WFV
# thesis's WFV-SLP variant (section 7.4) pays on this machine. Needs
# AVX-512F to measure anything; prints a table.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang-22 -O2 -mavx512f -mavx512dq -ffp-contract=off wfv_slp.c -o "$out/wfv_slp" -lmvec -lm
"$out/wfv_slp"
