#!/usr/bin/env bash
# Card-guessing routes measured side by side in one run (explicit game build, exact certificate
# of the DP strategies, exact sequence-form LP, exact vs f64 DP), then the CLI at the largest input.
# Arguments are passed on: [max explicit m+n=4] [max LP m+n=3] [max exact DP m+n=24].
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release --example shrek_donkey_scaling -- "$@"
cargo build --quiet --release
echo
echo "CLI, m = n = 1000 (best of 5 wall times):"
best=999
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  echo "1000 1000" | ./target/release/bluff shrek-donkey >/dev/null
  t=$(echo "$(date +%s.%N) - $start" | bc)
  best=$(echo "if ($t < $best) $t else $best" | bc)
done
printf "  %.3f s\n" "$best"
