#!/usr/bin/env bash
# Exact LP benchmark: bluff's whole exact sequence-form LP solve (build + float simplex + exact
# recompute and LP certificate) against HiGHS's float LP (build + solve, best of its simplex
# and interior point, one thread) on the same LP, side by side in one run, median of 3 runs
# per row (bench/lp_vs_highs.py says exactly what is timed). Creates bench/.venv-highs with
# highspy.
# Usage: bench/lp_vs_highs.sh [--big] [GAME_SPEC...]
#   --big adds liars dice 1x7 and goofspiel 5 (random point order), minutes each, and runs
#   the tests that pin their exact values (tests/lp_big.rs, ignored elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=bench/.venv-highs
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import highspy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "highspy==1.16.0"
fi
cargo build --release -q --bin bluff
BIG=0
if [ "${1:-}" = "--big" ]; then
  BIG=1
  shift
fi
if [ $# -eq 0 ]; then
  set -- "liars-dice(dice=1,sides=4)" leduc "liars-dice(dice=1,sides=5)" \
    "goofspiel(cards=4,order=descending)" "goofspiel(cards=5,order=descending)" \
    "one-card-poker(n=50)" "liars-dice(dice=1,sides=6)"
  if [ "$BIG" = 1 ]; then
    set -- "$@" "liars-dice(dice=1,sides=7)" "goofspiel(cards=5,order=random)"
  fi
fi
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
"$VENV/bin/python" bench/lp_vs_highs.py "$TARGET_DIR/release/bluff" "$TARGET_DIR/bench-mps" "$@"
if [ "$BIG" = 1 ]; then
  cargo test --release -q --test lp_big -- --ignored --nocapture
fi
