#!/usr/bin/env bash
# Exact LP benchmark: bluff's sequence-form LP against pygambit's lp_solve (rational and float)
# on the same games, run side by side here. Creates bench/.venv with pygambit (an sdist that
# compiles C++; the install time is printed), builds bluff in release, prints a Markdown table.
# Usage: bench/lp_vs_gambit.sh [GAME_SPEC...]   (GAMBIT_CAP_SECONDS caps each Gambit run, 300)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x bench/.venv/bin/python ] || ! bench/.venv/bin/python -c "import pygambit" 2>/dev/null; then
  python3 -m venv bench/.venv
  start=$(date +%s)
  bench/.venv/bin/pip install -q "pygambit==16.7.0"
  echo "pygambit installed in $(( $(date +%s) - start )) s" >&2
fi
cargo build --release -q --bin bluff
mkdir -p target/bench-efg
if [ $# -eq 0 ]; then
  set -- kuhn baby-poker "baby-poker(sides=12)" "one-card-poker(n=5,a=2,b=1)" \
    "one-card-poker(n=10,a=2,b=1)" "shrek-donkey(m=1,n=1)" "shrek-donkey(m=2,n=1)" \
    "one-card-poker(n=50,a=2,b=1)" "shrek-donkey(m=1,n=2)" leduc
fi
bench/.venv/bin/python bench/lp_vs_gambit.py target/release/bluff target/bench-efg "$@"
