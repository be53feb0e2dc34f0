#!/usr/bin/env bash
# Exact LP benchmark: bluff's sequence-form LP against pygambit's lp_solve (rational and float)
# on the same games, run side by side here. Uses bench/.venv (bench/venv.sh; pygambit is an
# sdist that compiles C++, the install time is printed), builds bluff in release, prints a Markdown table.
# Usage: bench/lp_vs_gambit.sh [GAME_SPEC...]   (GAMBIT_CAP_SECONDS caps each Gambit run, 300)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/venv.sh
cargo build --release -q --bin bluff
mkdir -p target/bench-efg
if [ $# -eq 0 ]; then
  set -- kuhn baby-poker "baby-poker(sides=12)" "one-card-poker(n=5,a=2,b=1)" \
    "one-card-poker(n=10,a=2,b=1)" "shrek-donkey(m=1,n=1)" "shrek-donkey(m=2,n=1)" \
    "one-card-poker(n=50,a=2,b=1)" "shrek-donkey(m=1,n=2)" leduc
fi
"$venv/bin/python" bench/lp_vs_gambit.py target/release/bluff target/bench-efg "$@"
