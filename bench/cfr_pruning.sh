#!/usr/bin/env bash
# Pruning of zero-reach subtrees: it/s with pruning off and on, side by side in one run
# (see bench/cfr_pruning.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$root" && cargo build --release --quiet --example cfr_pruning)
python3 "$root/bench/cfr_pruning.py" "$root/target/release/examples/cfr_pruning"
