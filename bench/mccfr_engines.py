"""Monte Carlo CFR speed by engine: bluff's arena and rules engines on every built-in game, the
engine bluff picks by default, and OpenSpiel 2.0.2's C++ solvers on the games it shares.

For each game and sampling solver (ES; OS with epsilon 0.6), REPS interleaved rounds of
SECONDS each, one thread, seed 1, `--no-eval`: bluff on the arena, bluff on the rules
(`--rules`), and OpenSpiel's `run_iteration()` in a loop where OpenSpiel has the game. The
median rate of each is kept (`--stat best`: the best, for a shared machine, where a run's rate
mostly says how much of a core it was given). bluff's default engine is the one `bluff solve
SPEC --algo ALGO` (no engine flag) reports in its `--json`; when that is the rules, the arena is
played from the game's `.efg` export (`bluff export SPEC`), the same tree. An iteration is one
traversal per player for all three (OpenSpiel's ES and OS `run_iteration()` alike), so
traversals per second are twice the iterations per second throughout. Games stated only as an
arena have no rules engine: one engine, measured for the record.

Prints one table: iterations and traversals per second of each engine, the default engine, the
default's rate over the faster engine's, and the default's traversals per second over
OpenSpiel's.

usage: python bench/mccfr_engines.py BLUFF [--seconds 8] [--reps 3] [--stat median|best]
       [--game SPEC ...]
(needs pyspiel: python/.venv has open_spiel 2.0.2)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import common
import mccfr_openspiel as ops

# Every game of `bluff games` at its defaults, and the sizes the benchmarks use.
GAMES = [
    "kuhn",
    "leduc",
    "liars-dice(dice=1,sides=5)",
    "liars-dice",
    "liars-dice(dice=2,sides=3)",
    "liars-dice(dice=1,sides=7)",
    "goofspiel",
    "goofspiel(cards=5)",
    "goofspiel(cards=5,order=descending)",
    "one-card-poker",
    "baby-poker",
    "big-leduc",
    "battleship",
    "shrek-donkey",
]
OPENSPIEL = {
    "leduc": ops.leduc,
    "liars-dice(dice=1,sides=5)": lambda: ops.liars_dice(5),
    "liars-dice": ops.liars_dice,
    "goofspiel": lambda: ops.goofspiel(4),
    "goofspiel(cards=5)": ops.goofspiel5,
}
RULES = ("kuhn", "leduc", "liars-dice", "goofspiel")


def bluff_rate(binary: str, game: str, algo: str, seconds: float, rules: bool) -> float:
    args = [
        game,
        "--algo",
        f"{algo}-mccfr",
        "--time",
        str(seconds),
        "--no-eval",
        "--seed",
        "1",
        "--threads",
        "1",
    ] + (["--rules"] if rules else [])
    return float(common.bluff_solve(binary, *args)["iterations_per_second"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--stat", choices=["median", "best"], default="median")
    ap.add_argument("--game", action="append", help="a game spec (repeatable; default: GAMES)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mccfr_engines_")
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for spec in args.game or GAMES:
        has_rules = spec.split("(")[0] in RULES
        default = {
            algo: common.bluff_solve(
                args.binary, spec, "--algo", f"{algo}-mccfr", "--iterations", "1", "--no-eval"
            )["engine"]
            for algo in ["es", "os"]
        }
        arena = spec
        if "rules" in default.values():
            arena = os.path.join(tmp, "game.efg")
            subprocess.run(
                [args.binary, "export", spec, "-o", arena], check=True, capture_output=True
            )
        os_game = OPENSPIEL[spec]() if spec in OPENSPIEL else None
        for algo in ["es", "os"]:
            rates: dict[str, list[float]] = {"arena": [], "rules": [], "openspiel": []}
            for _ in range(args.reps):
                rates["arena"].append(bluff_rate(args.binary, arena, algo, args.seconds, False))
                if has_rules:
                    rates["rules"].append(bluff_rate(args.binary, spec, algo, args.seconds, True))
                if os_game is not None:
                    rates["openspiel"].append(ops.rate(os_game, algo, args.seconds, 1))
            pick = statistics.median if args.stat == "median" else max
            med = {k: pick(v) if v else None for k, v in rates.items()}
            faster = max(r for r in (med["arena"], med["rules"]) if r is not None)
            row = {
                "game": spec,
                "algo": algo,
                "default": default[algo],
                "median": med,
                "rates": rates,
                "default_over_faster": med[default[algo]] / faster,
                "load": os.getloadavg()[0],
                "time": time.time(),
            }
            if med["openspiel"]:
                row["default_over_openspiel"] = med[default[algo]] / med["openspiel"]
            rows.append(row)
            print(json.dumps(row), flush=True)
        if arena != spec:
            os.remove(arena)
    os.rmdir(tmp)
    print(
        f"\nload average {os.getloadavg()[0]:.1f}; {args.stat} of {args.reps} interleaved runs of "
        f"{args.seconds:g} s, one thread; it/s = iterations per second, tr/s = traversals per "
        "second (2 per iteration for every solver)\n"
    )
    print(
        "| game | solver | arena it/s | rules it/s | default | default / faster | "
        "default tr/s | OpenSpiel tr/s | default / OpenSpiel |"
    )
    print("|---|---|---|---|---|---|---|---|---|")

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:,.0f}".replace(",", " ")

    for r in rows:
        m = r["median"]
        d = m[r["default"]]
        osr = m["openspiel"]
        print(
            f"| {r['game']} | {r['algo'].upper()} | {f(m['arena'])} | {f(m['rules'])} | "
            f"{r['default']} | {r['default_over_faster']:.2f} | {f(2 * d)} | "
            f"{f(2 * osr if osr else None)} | "
            f"{'-' if not osr else format(d / osr, '.1f') + 'x'} |"
        )


if __name__ == "__main__":
    main()
