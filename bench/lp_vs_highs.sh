#!/usr/bin/env bash
# Exact LP benchmark: bluff's whole exact sequence-form LP solve (build + float simplex + exact
# recompute and LP certificate) against HiGHS's float LP (build + solve, best of its simplex
# and interior point, one thread, on both players' LPs) side by side in one run, median of 3 runs
# per row (bench/lp_vs_highs.py says exactly what is timed). Uses bench/.venv
# (bench/venv.sh).
# Usage: bench/lp_vs_highs.sh [--big] [--callgrind SECONDS] [GAME_SPEC...]
#   --big adds liars dice 1x7 (minutes per run).
#   --callgrind S counts bluff's instructions (valgrind) on the rows under S seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/venv.sh
cargo build --release -q -p bluff-cli --bin bluff
BIG=0
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --big) BIG=1; shift ;;
    --callgrind) EXTRA+=(--callgrind "$2"); shift 2 ;;
    --repeats) EXTRA+=(--repeats "$2"); shift 2 ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  set -- "liars-dice(dice=1,sides=4)" leduc "liars-dice(dice=1,sides=5)" \
    "goofspiel(cards=4,order=descending)" "goofspiel(cards=5,order=descending)" \
    "one-card-poker(n=50)" "liars-dice(dice=1,sides=6)"
  if [ "$BIG" = 1 ]; then
    set -- "$@" "liars-dice(dice=1,sides=7)"
  fi
fi
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
"$venv/bin/python" bench/lp_vs_highs.py "$TARGET_DIR/release/bluff" "$TARGET_DIR/bench-mps" ${EXTRA[@]+"${EXTRA[@]}"} "$@"
