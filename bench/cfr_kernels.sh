#!/usr/bin/env bash
# The two CFR kernels (tree, sequence form) side by side in one run: iterations per second on
# one and two threads, the `cfr` crate 0.6.2 where it plays the game, the machine's memory
# bandwidth by a stream-style copy/triad loop, bytes moved per iteration (from the layout)
# against it, and callgrind instructions per iteration. Installs the crate into
# bench/.cfr-crate on first use; needs valgrind for the instruction counts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
crate="$here/.cfr-crate"
if [ ! -x "$crate/bin/cfr" ]; then
  cargo install cfr --version 0.6.2 --locked --root "$crate" --quiet || true
fi
command -v valgrind >/dev/null || { echo "valgrind is needed for the instruction counts" >&2; exit 1; }
target="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && cargo build --release --quiet -p bluff-cli && cargo build --release --quiet -p bluff --example cfr_kernels --example stream)
python3 "$here/cfr_kernels.py" "$target/release/examples/cfr_kernels" \
  "$target/release/examples/stream" "$target/release/bluff" "$crate/bin/cfr"
