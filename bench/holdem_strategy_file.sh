#!/usr/bin/env bash
# Hold'em strategy files: the size of the file `bluff solve SPOT.toml -o S` writes for issue
# 40's flop spot, its write time (`strategy_file.write_seconds` of the solve's JSON), the time
# `bluff eval` takes to read it back (`read_seconds`) and to evaluate it (`eval_seconds`), and
# that the evaluation gives the solve's exploitability. One iteration is enough: the file's
# size and times do not depend on how far the solve went. Needs about 8 GB of memory (the f64
# solver state is 6.2 GB) and a few minutes of CPU.
# Usage: bench/holdem_strategy_file.sh [SPOT.toml] [OUT.bin] [ROOT: flop, turn or river]
set -euo pipefail
cd "$(dirname "$0")/.."
spot=${1:-bench/spots/3betpot_fast_flop.toml}
out=${2:-bench/out/holdem_strategy.bin}
root=${3:-flop}
mkdir -p "$(dirname "$out")"
cargo build --release -q
bluff=${CARGO_TARGET_DIR:-target}/release/bluff
/usr/bin/time -f "solve: wall %e s, user %U s, sys %S s, peak %M KB" \
  "$bluff" solve "$spot" --iterations 1 --check-every 1 --threads 2 -o "$out" --json \
  > bench/out/holdem_strategy_solve.json
/usr/bin/time -f "eval: wall %e s, user %U s, sys %S s, peak %M KB" \
  "$bluff" eval "$spot" "$out" --json > bench/out/holdem_strategy_eval.json
/usr/bin/time -f "export-strategy (reads the whole file): wall %e s, user %U s, sys %S s" \
  "$bluff" export-strategy "$spot" "$out" --node "$root" > /dev/null
python3 - <<'PY'
import json
s = json.load(open("bench/out/holdem_strategy_solve.json"))
e = json.load(open("bench/out/holdem_strategy_eval.json"))
f = s["strategy_file"]
print(f"state {s['state_bytes'] / 1e9:.2f} GB, file {f['bytes'] / 1e9:.3f} GB, "
      f"written in {f['write_seconds']:.2f} s, read in {e['read_seconds']:.2f} s, "
      f"evaluated in {e['eval_seconds']:.2f} s")
print(f"exploitability: solve {s['exploitability']!r}, eval {e['exploitability']!r}")
PY
