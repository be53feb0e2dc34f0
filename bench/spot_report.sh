#!/usr/bin/env bash
# The range-grid report of a hold'em spot: `bluff report SPOT.toml S -o PAGE` time and size,
# and how long headless Chromium takes to open the page (the page's own `performance.now()`
# when its script is done, `#js-status[data-ms]`, and the wall time of `chromium --dump-dom`,
# browser start included). The strategy comes from `bluff solve SPOT -o S` with the stop rule
# given (the page's size and load time do not depend on how far the solve went).
# Usage: bench/spot_report.sh [SPOT.toml] [STOP ARGS...]
#   e.g. bench/spot_report.sh bench/spots/3betpot_fast_turn.toml --target-pot-pct 0.5
#        bench/spot_report.sh bench/spots/3betpot_fast_flop.toml --iterations 1
set -euo pipefail
cd "$(dirname "$0")/.."
spot=${1:-bench/spots/3betpot_fast_turn.toml}
shift || true
stop=("$@")
[ ${#stop[@]} -eq 0 ] && stop=(--target-pot-pct 0.5)
out=bench/out/spot_report
mkdir -p "$out"
cargo build --release -q
bluff=${CARGO_TARGET_DIR:-target}/release/bluff
chrome=${BLUFF_CHROMIUM:-chromium}
/usr/bin/time -f "solve: wall %e s, peak %M KB" \
  "$bluff" solve "$spot" "${stop[@]}" --threads 2 -o "$out/s.bspt" --json > "$out/solve.json"
/usr/bin/time -f "report: wall %e s, peak %M KB" \
  "$bluff" report "$spot" "$out/s.bspt" -o "$out/page.html"
ls -l "$out/page.html"
for i in 1 2 3; do
  start=$(date +%s.%N)
  "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out/profile" --dump-dom "file://$PWD/$out/page.html" 2>/dev/null \
    > "$out/dom.html"
  end=$(date +%s.%N)
  ms=$(grep -o 'data-ms="[0-9]*"' "$out/dom.html" | grep -o '[0-9]*')
  status=$(grep -o 'id="js-status"[^>]*>[^<]*' "$out/dom.html" | sed 's/.*>//')
  echo "chromium run $i: script done at ${ms} ms after navigation start ($status); chromium --dump-dom wall $(echo "$end - $start" | bc) s"
done
