#!/usr/bin/env bash
# bluff's vanilla CFR against the `cfr` crate 0.6.2 on the same exported .efg files, side by
# side in one run (iterations/s at 1 thread, bluff's 2-thread speed-up, callgrind instructions
# per iteration on the small games). Installs the crate into bench/.cfr-crate on first use;
# needs valgrind for the instruction counts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
crate="$here/.cfr-crate"
if [ ! -x "$crate/bin/cfr" ]; then
  cargo install cfr --version 0.6.2 --locked --root "$crate" --quiet
fi
command -v valgrind >/dev/null || { echo "valgrind is needed for the instruction counts" >&2; exit 1; }
(cd "$root" && cargo build --release --quiet)
python3 "$here/cfr_vs_cfr_crate.py" "$root/target/release/bluff" "$crate/bin/cfr"
