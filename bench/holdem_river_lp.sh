#!/usr/bin/env bash
# The exact river LP (`bluff solve RIVER.toml --algo lp`) on river spots: combos per range,
# compatible pairs, sequences, the LP's size, float pivots, time and peak RSS, one row each.
# Usage: bench/holdem_river_lp.sh [SPOT.toml ...]   (default: the spots below)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin bluff
bluff="${CARGO_TARGET_DIR:-target}/release/bluff"
spots=("$@")
[ ${#spots[@]} -gt 0 ] || spots=(tests/data/spots/river.toml bench/spots/river_wide.toml bench/spots/3betpot_fast_river.toml)
echo "| spot | combos OOP / IP | pairs | sequences OOP / IP | LP vars x rows | payoff non-zeros | float pivots | exact route | seconds (solve / total) | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for s in "${spots[@]}"; do
  out=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$out.time" "$bluff" solve "$s" --algo lp --json --threads 1 > "$out"
  python3 - "$s" "$out" "$out.time" <<'PY'
import json, sys
spot, path, tpath = sys.argv[1:]
j = json.load(open(path))
wall, kb = open(tpath).read().split()[-2:]
sec = j["seconds"]
print(f"| {spot.split('/')[-1]} | {j['combos'][0]} / {j['combos'][1]} | {j['compatible_pairs']} | "
      f"{j['sequences'][0]} / {j['sequences'][1]} | {j['lp_vars']} x {j['lp_rows']} | {j['payoff_nonzeros']} | "
      f"{j['float_pivots']} | {j['exact_route']} ({j['refinement_rounds']} rounds) | "
      f"{sec['solve_total']:.1f} / {float(wall):.1f} | {int(kb) / 1e6:.2f} GB |")
PY
  rm -f "$out" "$out.time"
done
