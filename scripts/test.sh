#!/usr/bin/env bash
# The project's test command: installs the toolchain if needed, builds in
# release mode, and runs every test of the workspace in release mode (the
# corpus differential tests compile and run hundreds of C drivers).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "test: cargo build --release"
cargo build --release
echo "test: cargo test --release --workspace --no-fail-fast"
cargo test --release --workspace --no-fail-fast
