#!/usr/bin/env bash
# Hold'em spots: bluff against postflop-solver (b-inary/postflop-solver, AGPL-3.0) on issue 40's
# flop and turn spots, side by side: time and iterations to 0.5% and 0.1% of the pot with 2
# threads and a measurement every 10 iterations, peak RSS, tree counts, root equity and EVs.
#
# Fetches the peer at a pinned commit into bench/.postflop-solver (a clone from GitHub, or
# `git archive` of a local bare mirror given as POSTFLOP_SOLVER_GIT_DIR), builds our driver
# bench/postflop_driver against it with `-C target-cpu=native` (and `--cap-lints warn`: the
# peer's code warns on newer rustc; its default `bincode` feature no longer builds, so
# `--no-default-features --features rayon`), builds bluff as `cargo build --release` does from
# a fresh clone (no RUSTFLAGS), then runs bench/holdem_vs_postflop.py, which interleaves the
# runs and resumes from its results file when stopped.
# Usage: bench/holdem_vs_postflop.sh [--results FILE] [--spots flop,turn,raked]
set -euo pipefail
cd "$(dirname "$0")/.."
peer=bench/.postflop-solver
commit=9d1509fe5077d019825f833eed04b16d342dfda1
if [ ! -f "$peer/Cargo.toml" ]; then
  rm -rf "$peer"
  if [ -n "${POSTFLOP_SOLVER_GIT_DIR:-}" ]; then
    mkdir -p "$peer"
    git --git-dir="$POSTFLOP_SOLVER_GIT_DIR" archive "$commit" | tar -x -C "$peer"
  else
    git clone --quiet https://github.com/b-inary/postflop-solver "$peer"
    git -C "$peer" checkout --quiet "$commit"
  fi
fi
RUSTFLAGS="-C target-cpu=native --cap-lints warn" cargo build --release --quiet \
  --manifest-path bench/postflop_driver/Cargo.toml --target-dir target/postflop-driver
env -u RUSTFLAGS cargo build --release --quiet --bin bluff
python3 bench/holdem_vs_postflop.py target/release/bluff \
  target/postflop-driver/release/postflop_driver "$@"
