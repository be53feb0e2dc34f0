#!/usr/bin/env bash
# General-sum LCP benchmark: bluff's exact sequence-form LCP (`--algo lcp`: float Lemke pivots on
# a sparse LU, the final basis solved exactly, NashConv certified 0) against pygambit 16.7.0's
# `lcp_solve` (the same sequence-form LCP and Lemke's algorithm), rational and float, on the same
# exported .efg files, side by side in one run. Prints a Markdown table.
#
# The venv: $GAMBIT_VENV if set (a venv whose python imports pygambit 16.7.0), otherwise
# bench/.venv-gambit, created here with pygambit==16.7.0 (an sdist that compiles Gambit's C++:
# tens of minutes on a busy 2-core machine the first time).
# Usage: bench/lcp_vs_gambit.sh [GAME_SPEC...]
#   GAMBIT_CAP_SECONDS caps each Gambit run (600; a capped row says "> 600 s").
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${GAMBIT_VENV:-bench/.venv-gambit}"
if ! "$venv/bin/python" -c "import pygambit" 2>/dev/null; then
  python3 -m venv "$venv"
  start=$(date +%s)
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pygambit==16.7.0"
  echo "$venv: pygambit installed in $(( $(date +%s) - start )) s" >&2
fi
cargo build --release -q -p bluff-cli --bin bluff
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
mkdir -p "$TARGET_DIR/bench-lcp"
if [ $# -eq 0 ]; then
  set -- "one-card-poker(n=10,a=2,b=1,rake=0.05)" "one-card-poker(n=20,a=2,b=1,rake=0.05)" \
    "one-card-poker(n=50,a=2,b=1,rake=0.05)" "leduc(rake=0.05)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
"$venv/bin/python" bench/lcp_vs_gambit.py "$TARGET_DIR/release/bluff" "$TARGET_DIR/bench-lcp" "$@"
