#!/usr/bin/env bash
# Benchmarks bluff's CFR / CFR+ against OpenSpiel's C++ solvers (pyspiel) in one run and prints
# a side-by-side table with ratios. Creates bench/.venv with open_spiel on first use.
# Usage: bench/cfr_vs_openspiel.sh [bluff thread counts, default "1 2"]
# Environment: KUHN_ITERS (default 1000,10000), LEDUC_ITERS (default 100,1000).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x bench/.venv/bin/python ]; then
    python3.11 -m venv bench/.venv || python3 -m venv bench/.venv
fi
if ! bench/.venv/bin/python -c "import pyspiel" 2>/dev/null; then
    bench/.venv/bin/pip install --quiet open_spiel
fi
cargo build --release --quiet --example cfr_throughput
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
bench/.venv/bin/python bench/cfr_vs_openspiel.py target/release/examples/cfr_throughput "${threads[@]}"
