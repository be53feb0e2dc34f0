#!/usr/bin/env bash
# bluff's CFR on 1 and 2 threads, side by side in one run (see bench/cfr_threads.py):
# goofspiel 5 cards, liars_dice 1 die 6 sides and a random 1e6-node .efg.
# FIFO=1 runs every timed process under `chrt -f 1` (root only): on a machine busy with other
# work, the runs then keep their cores (the cache and memory stay shared).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$root" && cargo build --release --quiet)
rustc -O "$root/bench/core_roundtrip.rs" -o "$root/target/core_roundtrip"
python3 "$root/bench/cfr_threads.py" "$root/target/release/bluff" "$root/bench/gen_random_efg.py" \
    "$root/target/core_roundtrip"
