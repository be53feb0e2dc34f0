#!/usr/bin/env bash
# Exact LP benchmark: bluff's sequence-form LP (sparse float simplex, exact recompute, exact
# best-response certificate) against HiGHS's float simplex (highspy) and microlp's (pure Rust,
# built from bench/microlp) on the same LP, written by an untimed `bluff solve --write-mps`
# run, side by side in one run. bluff is then timed as a whole process (CPU, one thread, no MPS
# writing: game and LP build, solve, certificate, process start); HiGHS around its simplex
# run alone (bench/lp_vs_highs.py says exactly what is timed). Creates bench/.venv-highs with
# highspy.
# goofspiel(cards=4) is OpenSpiel's goofspiel(num_cards=4, imp_info=True) with its defaults
# (points_order=random, returns_type=win_loss), turn-based: 26 773 nodes, 1804 information sets
# (src/games/goofspiel.rs tests these counts against OpenSpiel 2.0.2).
# Usage: bench/lp_vs_highs.sh [GAME_SPEC...]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=bench/.venv-highs
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import highspy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "highspy==1.16.0"
fi
cargo build --release -q --bin bluff
cargo build --release -q --manifest-path bench/microlp/Cargo.toml
mkdir -p target/bench-mps
if [ $# -eq 0 ]; then
  set -- kuhn leduc "liars-dice(dice=1,sides=4)" "liars-dice(dice=1,sides=5)" \
    "goofspiel(cards=4,order=random,returns=win-loss)" "one-card-poker(n=50,a=2,b=1)" "shrek-donkey(m=1,n=3)" \
    "liars-dice(dice=1,sides=6)"
fi
"$VENV/bin/python" bench/lp_vs_highs.py target/release/bluff \
  bench/microlp/target/release/microlp-bench target/bench-mps "$@"
