#!/usr/bin/env bash
# Installs Lanewise's OpenCL platform for every OpenCL program on this
# machine: builds liblanewise_opencl.so and writes
# /etc/OpenCL/vendors/lanewise.icd, which the Khronos ICD loader reads.
# `clinfo -l` then lists "Lanewise". Without root, or to try it without
# installing, point the loader at a directory of your own instead:
#   OCL_ICD_VENDORS=/some/dir (holding lanewise.icd) ./your-program
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p lanewise-opencl
library=$(pwd)/target/release/liblanewise_opencl.so
vendors=${OPENCL_VENDORS_DIR:-/etc/OpenCL/vendors}
if [[ $(id -u) -eq 0 ]]; then sudo=(); else sudo=(sudo); fi
"${sudo[@]}" mkdir -p "$vendors"
echo "$library" | "${sudo[@]}" tee "$vendors/lanewise.icd" >/dev/null
echo "install-opencl: $vendors/lanewise.icd -> $library"
clinfo -l
