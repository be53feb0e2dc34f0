#!/usr/bin/env bash
# Benchmark bluff's CFR and CFR+ against OpenSpiel's C++ solvers on Kuhn and Leduc poker, in one
# run, printing a side-by-side table with ratios. Creates bench/.venv with open_spiel on first use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import pyspiel" 2>/dev/null; then
  "$venv/bin/pip" install --quiet open_spiel
fi
(cd "$root" && cargo build --release --quiet)
"$venv/bin/python" "$here/cfr_vs_openspiel.py" "$root/target/release/bluff"
