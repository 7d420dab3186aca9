#!/usr/bin/env bash
# The project's test command: installs the toolchain if needed, builds in
# release mode, and runs every test of the workspace in release mode (the
# corpus differential tests compile and run hundreds of C drivers). Ends with
# one line counting the tests of every test binary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "test: cargo build --release"
cargo build --release
echo "test: cargo test --release --workspace --no-fail-fast"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --release --workspace --no-fail-fast 2>&1 | tee "$log" || status=$?
awk '/^test result:/ { passed += $4; failed += $6 } END { printf "tests: %d passed, %d failed\n", passed, failed }' \
    "$log"
exit "$status"
