"""A locked re-solve warm-started from an unlocked run's checkpoint against a cold one: the
iterations each needs to reach the same exploitability of the locked game.

    python bench/locks_warm_start.py path/to/bluff [--target 1e-3] [--base 2000]

For each game: an unlocked dcfr run of --base iterations is saved; the lock fixes player 1's
first information set (in the game's order) to its first action; the cold run starts afresh
under the lock, the warm one resumes the checkpoint under it (`--resume C --lock L`, a warm
start); both stop at --target (the locked game's exploitability, measured on the run's
schedule). One thread, so the counts are reproducible.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile

import common

GAMES = ["leduc", "liars-dice(sides=6)"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bluff")
    parser.add_argument("--target", type=float, default=1e-3)
    parser.add_argument("--base", type=int, default=2000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for game in GAMES:
            base = tmp / "base.ckpt"
            strategy = tmp / "base.json"
            common.run(
                [args.bluff, "solve", game, "--algo", "dcfr", "--threads", "1"]
                + ["--iterations", str(args.base), "--checkpoint", str(base), "-o", str(strategy)]
            )
            sets = json.loads(strategy.read_text())["strategy"]["P1"]
            label, actions = next(iter(sets.items()))
            first = next(iter(actions))
            lock = tmp / "lock.json"
            lock.write_text(json.dumps({"strategy": {"P1": {label: {first: "1"}}}}))
            stop = ["--target", str(args.target), "--lock", str(lock), "--json"]
            cold = common.run_json(
                [args.bluff, "solve", game, "--algo", "dcfr", "--threads", "1"] + stop
            )
            warm = common.run_json(
                [args.bluff, "solve", game, "--resume", str(base), "--threads", "1"] + stop
            )
            extra = warm["iterations"] - args.base
            rows.append(
                [
                    game,
                    f"P1 {label!r}: {first}",
                    str(cold["iterations"]),
                    str(extra),
                    f"{cold['iterations'] / max(extra, 1):.1f}x",
                ]
            )
    print(
        common.markdown_table(
            ["game", "lock", "cold iterations", "warm iterations (after the base)", "cold / warm"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
