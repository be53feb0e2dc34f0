#!/usr/bin/env bash
# The CFR variants as their authors' code runs them, re-implemented on OpenSpiel's leduc_poker
# and liars_dice (1 die, 4 sides), beside bluff's figures after 100 and 1000 iterations, with
# the spread that rounding alone gives (payoffs scaled by 1 + k 1e-13). Uses bench/.venv
# (bench/venv.sh). Several minutes: the Python walks
# the tree once per player per iteration.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
. "$here/venv.sh"
(cd "$root" && cargo build --release --quiet)
algos="${ALGOS:-dcfr,pcfr+,dcfr+,pdcfr+,hs-dcfr,hs-pcfr+}"
for game in leduc_poker liars_dice; do
  "$venv/bin/python" "$here/authors_rules.py" "$root/target/release/bluff" "$game" 100,1000 \
    "$algos" --perturb "${PERTURB:-6}"
done
