#!/usr/bin/env bash
# bluff from Python vs LiteEFG 1.0.0 and OpenSpiel 2.0.2's C++ CFRPlusSolver (see the .py file).
# Creates bench/.venv-py with the peers from the package index and installs bluff from ./python.
# Usage: bash bench/python_vs_peers.sh [--cap SECONDS] [--big-cap SECONDS] [--big-nodes N]
#        [--liteefg-big-cap SECONDS] [--big-mem-limit GB] [--games NAME ...]
#        [--solvers NAME ...] [--jobs N] [--log-dir DIR] [--json FILE]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="$here/.venv-py"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet open_spiel==2.0.2 LiteEFG==1.0.0 numpy maturin
"$venv/bin/pip" install --quiet "$root/python"
exec "$venv/bin/python" "$here/python_vs_peers.py" "$@"
