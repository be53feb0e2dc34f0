#!/usr/bin/env bash
# Monte Carlo CFR: bluff against OpenSpiel 2.0.2's C++ ES/OS-MCCFR solvers and LiteEFG 1.0.0's
# sampling traversals, side by side in one run, with ratios, times to OpenSpiel's 60-s
# exploitability and one exploitability-against-time plot per game (leduc, liars dice 1x6,
# goofspiel 5 in random order). Creates bench/.venv-mccfr on first use. Takes about 40 minutes
# (`--quick`: a few). Not for CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="$here/.venv-mccfr"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import pyspiel, LiteEFG, matplotlib" 2>/dev/null; then
  "$venv/bin/pip" install --quiet open_spiel==2.0.2 LiteEFG==1.0.0 matplotlib
fi
target="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && nice -n 10 cargo build --release --quiet)
out="${OUT:-$here/out/mccfr_vs_peers}"
mkdir -p "$out"
# A copy of the binary, so that a rebuild during the run changes nothing.
cp "$target/release/bluff" "$out/bluff"
uptime
nice -n "${NICE:-10}" "$venv/bin/python" "$here/mccfr_vs_peers.py" "$out/bluff" "$out" "$@"
uptime
