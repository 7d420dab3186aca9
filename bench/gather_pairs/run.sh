#!/usr/bin/env bash
# Builds and runs bench/gather_pairs/gather_pairs.c (see its header): what
# pairing gathers of neighbouring 32-bit elements into one gather of 64-bit
# elements gains on this machine. Needs AVX2; prints ns per 8 lanes.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang-22 -O2 -mavx2 gather_pairs.c -o "$out/gather_pairs"
"$out/gather_pairs"
