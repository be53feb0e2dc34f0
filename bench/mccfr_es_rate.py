"""External-sampling rate of bluff against OpenSpiel's C++ ExternalSamplingMCCFRSolver on one
game, side by side in one run: each solver runs 10 s, in turns, twice, and the best rate of
each is kept (an iteration is one traversal per player, OpenSpiel's `run_iteration()`). bluff
plays the game's rules (`--rules`). A second bluff binary, if given, is measured in the same
turns (before/after a change). The quick check beside `bench/mccfr_vs_peers.sh`, which measures
every solver, curve and game (40 minutes).

usage: python bench/mccfr_es_rate.py BLUFF [OTHER_BLUFF] [--game leduc|liars-dice|goofspiel]
(needs pyspiel: python/.venv has open_spiel 2.0.2)
"""

from __future__ import annotations

import argparse
import os

import common
import mccfr_openspiel as ops

GAMES = {
    "leduc": ("leduc", ops.leduc),
    "liars-dice": ("liars-dice", ops.liars_dice),
    "goofspiel": ("goofspiel(cards=5)", ops.goofspiel5),
}
SECONDS = 10


def bluff_rate(binary: str, spec: str) -> float:
    """Iterations per second of bluff's external sampling on the game's rules."""
    args = ["--algo", "es-mccfr", "--time", str(SECONDS), "--no-eval", "--seed", "1", "--rules"]
    return float(common.bluff_solve(binary, spec, *args)["iterations_per_second"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("other", nargs="?")
    ap.add_argument("--game", choices=sorted(GAMES), default="goofspiel")
    args = ap.parse_args()
    spec, load = GAMES[args.game]
    game = load()
    binaries = {"bluff": args.binary} | ({"other": args.other} if args.other else {})
    best = {"openspiel": 0.0} | {k: 0.0 for k in binaries}
    for _ in range(2):
        best["openspiel"] = max(best["openspiel"], ops.rate(game, "es", SECONDS, 1))
        for name, path in binaries.items():
            best[name] = max(best[name], bluff_rate(path, spec))
    print(f"{spec}, load average {os.getloadavg()[0]:.1f}")
    print("| solver | iterations/s | ratio to OpenSpiel |")
    print("|---|---|---|")
    for name, rate in best.items():
        print(f"| {name} | {rate:,.0f} | {rate / best['openspiel']:.1f}x |")


if __name__ == "__main__":
    main()
