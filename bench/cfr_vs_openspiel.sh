#!/usr/bin/env bash
# Benchmark bluff's CFR and CFR+ against OpenSpiel's C++ solvers on Kuhn and Leduc poker, in one
# run, printing a side-by-side table with ratios. Uses bench/.venv (bench/venv.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/venv.sh"
(cd "$root" && cargo build --release --quiet)
"$venv/bin/python" "$here/cfr_vs_openspiel.py" "$root/target/release/bluff"
