#!/usr/bin/env bash
# A warm-started locked re-solve against a cold one on Leduc and liar's dice 1x6
# (see bench/locks_warm_start.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$root" && cargo build --release --quiet -p bluff-cli)
python3 "$root/bench/locks_warm_start.py" "${CARGO_TARGET_DIR:-$root/target}/release/bluff" "$@"
