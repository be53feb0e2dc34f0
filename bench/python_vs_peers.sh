#!/usr/bin/env bash
# bluff from Python vs LiteEFG 1.0.0 and OpenSpiel 2.0.2's C++ CFRPlusSolver (see the .py file).
# Uses bench/.venv (bench/venv.sh) and installs bluff from ./python into it.
# Usage: bash bench/python_vs_peers.sh [--cap SECONDS] [--big-cap SECONDS] [--big-nodes N]
#        [--liteefg-big-cap SECONDS] [--big-mem-limit GB] [--games NAME ...]
#        [--solvers NAME ...] [--jobs N] [--log-dir DIR] [--json FILE]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/venv.sh"
"$venv/bin/pip" install --quiet "$root/python"
exec "$venv/bin/python" "$here/python_vs_peers.py" "$@"
