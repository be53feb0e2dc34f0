#!/usr/bin/env bash
# Every .efg and .nfg file of a fetched Gambit snapshot (catalog/, contrib/games/,
# tests/test_games/) through bluff: read, solved by `--algo lcp` (two-player games with perfect
# recall; .nfg files also through `normal-form --all`), each answer confirmed by pygambit 16.7.0,
# other games refused with their reason. Gambit's files are GPL: read from the snapshot (its HEAD
# extracted to a temporary directory), never copied into bluff. Then gambitproject/lemke's test
# games (bench/lemke_games.py), if LEMKE_SNAPSHOT is given. Runs niced (the machine is shared).
#
# Usage: bench/gambit_sweep.sh GAMBIT_SNAPSHOT        (a checkout, or the git directory `fetch` gives)
#   BLUFF_CAP_SECONDS (60) caps each bluff run, FILE_CAP_SECONDS (300) each file's checks,
#   MAX_VERTICES (10000) is `normal-form --all --max-vertices`.
#   LEMKE_SNAPSHOT=PATH also runs bench/lemke_games.py on a gambitproject/lemke snapshot.
# Writes bench/out/gambit_sweep.json (a row per file) and prints the table of counts.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: bench/gambit_sweep.sh GAMBIT_SNAPSHOT" >&2
  exit 2
fi
snapshot="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
. bench/venv.sh
cargo build --release -q -p bluff-cli --bin bluff
bluff="${CARGO_TARGET_DIR:-target}/release/bluff"
mkdir -p bench/out
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
nice -n 10 "$venv/bin/python" bench/gambit_sweep.py "$bluff" "$snapshot" bench/out
if [ -n "${LEMKE_SNAPSHOT:-}" ]; then
  nice -n 10 "$venv/bin/python" bench/lemke_games.py "$bluff" "$LEMKE_SNAPSHOT" bench/out
fi
