#!/usr/bin/env bash
# Exact LP benchmark: bluff's sequence-form LP (sparse float simplex, exact recompute, exact
# best-response certificate) against HiGHS's float simplex (highspy) on the same LP, written by
# `bluff solve --write-mps`, side by side in one run. Creates bench/.venv-highs with highspy.
# Usage: bench/lp_vs_highs.sh [GAME_SPEC...]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=bench/.venv-highs
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import highspy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "highspy==1.16.0"
fi
cargo build --release -q --bin bluff
mkdir -p target/bench-mps
if [ $# -eq 0 ]; then
  set -- kuhn leduc "liars-dice(dice=1,sides=4)" "liars-dice(dice=1,sides=5)" \
    "goofspiel(cards=4)" "one-card-poker(n=50,a=2,b=1)" "shrek-donkey(m=1,n=3)" \
    "liars-dice(dice=1,sides=6)"
fi
"$VENV/bin/python" bench/lp_vs_highs.py target/release/bluff target/bench-mps "$@"
