"""Monte Carlo CFR at equal traversals: bluff against OpenSpiel 2.0.2's C++ solvers.

For each game, sampling solver (ES, OS with epsilon 0.6), iteration count N and seed, bluff runs
N iterations (`bluff solve SPEC --algo es-mccfr|os-mccfr --iterations N --seed S --json`, one
thread, its default engine) and OpenSpiel's `ExternalSamplingMCCFRSolver` /
`OutcomeSamplingMCCFRSolver` runs N `run_iteration()` calls: both are one traversal per player,
2N traversals. Each average strategy's NashConv is exact (bluff's best response;
`pyspiel.nash_conv`). The table gives, per row, each side's mean and standard deviation over the
seeds, the two means' combined standard error sqrt(sd_b^2/n + sd_o^2/n), and whether bluff's mean
is at most OpenSpiel's plus that error.

Resumable: every finished run is appended to OUT (one JSON object a line, flushed and synced)
and runs already there are skipped, so a stopped session loses at most the run it was in.
Rows run smallest N first. Not for CI.

usage: python bench/mccfr_equal_traversals.py BLUFF [--out FILE] [--iterations 10000,40000]
       [--seeds 8] [--games leduc,liars-dice-1x5,goofspiel-4] [--algos es,os] [--table-only]
       [--ranges 0-63,64-191]

`--ranges` adds a table over seed ranges (each row: the seeds of the range both sides have run,
each side's mean and standard deviation, the combined standard error and the difference of the
means in standard errors), for the rows run with more seeds than the first table's.
(needs pyspiel: python/.venv has open_spiel 2.0.2)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import common
import mccfr_openspiel as ops
import pyspiel

# name -> (bluff spec, OpenSpiel loader)
GAMES = {
    "leduc": ("leduc", ops.leduc),
    "liars-dice-1x5": ("liars-dice(dice=1,sides=5)", lambda: ops.liars_dice(5)),
    "goofspiel-4": ("goofspiel(cards=4)", lambda: ops.goofspiel(4)),
}
ALGOS = ["es", "os"]
SOLVERS = ["bluff", "openspiel"]


def key(game: str, algo: str, n: int, seed: int, solver: str) -> tuple:
    return (game, algo, n, seed, solver)


def load(path: str) -> dict[tuple, dict]:
    """The runs already in `path`, by key."""
    rows = common.load_jsonl(path)
    return {key(r["game"], r["algo"], r["iterations"], r["seed"], r["solver"]): r for r in rows}


def run_bluff(binary: str, spec: str, algo: str, n: int, seed: int) -> dict:
    args = ["--algo", f"{algo}-mccfr", "--iterations", str(n), "--seed", str(seed)]
    r = common.bluff_solve(binary, spec, *args, "--threads", "1")
    assert r["iterations"] == n, r["iterations"]
    return {"nash_conv": r["nash_conv"], "seconds": r["seconds"], "engine": r["engine"]}


def run_openspiel(game: pyspiel.Game, algo: str, n: int, seed: int) -> dict:
    solver = ops.solver(game, algo, seed)
    start = time.perf_counter()
    for _ in range(n):
        solver.run_iteration()
    seconds = time.perf_counter() - start
    # OpenSpiel's OS average policy answers by state only (use_state_get_policy).
    nash_conv = pyspiel.nash_conv(game, solver.average_policy(), True)
    return {"nash_conv": nash_conv, "seconds": seconds}


def stats(xs: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation."""
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def table(done: dict[tuple, dict], games: list[str], sizes: list[int], seeds: int) -> bool:
    """Prints the table of the complete rows; whether every complete row keeps the claim."""
    print(
        "| game | solver | iterations (= run_iteration calls) | bluff NashConv | "
        "OpenSpiel NashConv | combined SE | bluff <= OpenSpiel + SE |"
    )
    print("|---|---|---|---|---|---|---|")
    ok = True
    for n in sizes:
        for g in games:
            for a in ALGOS:
                vals = {
                    s: [
                        done[k]["nash_conv"]
                        for i in range(seeds)
                        if (k := key(g, a, n, i, s)) in done
                    ]
                    for s in SOLVERS
                }
                if any(len(v) < seeds for v in vals.values()):
                    continue
                (mb, sb), (mo, so) = stats(vals["bluff"]), stats(vals["openspiel"])
                se = math.sqrt((sb**2 + so**2) / seeds)
                kept = mb <= mo + se
                ok &= kept
                print(
                    f"| {g} | {a.upper()} | {n:,} | {mb:.4f} ± {sb:.4f} | {mo:.4f} ± {so:.4f} "
                    f"| {se:.4f} | {'yes' if kept else '**no**'} |".replace(",", " ")
                )
    return ok


def range_table(
    done: dict[tuple, dict],
    games: list[str],
    sizes: list[int],
    algos: list[str],
    ranges: list[range],
) -> None:
    """Prints, per game, solver, size and seed range, the two sides' means over the range's seeds
    that both have run, and their difference in combined standard errors."""
    print(
        "| game | solver | iterations | seeds | bluff NashConv | OpenSpiel NashConv "
        "| combined SE | difference / SE |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for g in games:
            for a in algos:
                for r in ranges:
                    seeds = [i for i in r if all(key(g, a, n, i, s) in done for s in SOLVERS)]
                    if len(seeds) < 2:
                        continue
                    vals = {
                        s: [done[key(g, a, n, i, s)]["nash_conv"] for i in seeds] for s in SOLVERS
                    }
                    (mb, sb), (mo, so) = stats(vals["bluff"]), stats(vals["openspiel"])
                    se = math.sqrt((sb**2 + so**2) / len(seeds))
                    print(
                        f"| {g} | {a.upper()} | {n:,} | {r.start}-{r.stop - 1} ({len(seeds)}) "
                        f"| {mb:.4f} ± {sb:.4f} | {mo:.4f} ± {so:.4f} | {se:.4f} "
                        f"| {(mb - mo) / se:+.2f} |".replace(",", " ")
                    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(__file__), "out", "mccfr_equal_traversals.jsonl"),
    )
    ap.add_argument("--iterations", default="10000,40000,200000")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--ranges", default="", help="seed ranges for a second table: 0-63,64-191")
    args = ap.parse_args()
    sizes = [int(x) for x in args.iterations.split(",")]
    games = args.games.split(",")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    done = load(args.out)
    if not args.table_only:
        loaded: dict[str, pyspiel.Game] = {}
        for n in sizes:
            for g in games:
                spec, loader = GAMES[g]
                for a in args.algos.split(","):
                    for seed in range(args.seeds):
                        for s in SOLVERS:
                            k = key(g, a, n, seed, s)
                            if k in done:
                                continue
                            if s == "bluff":
                                r = run_bluff(args.binary, spec, a, n, seed)
                            else:
                                game = loaded.setdefault(g, loader())
                                r = run_openspiel(game, a, n, seed)
                            row = {
                                "game": g,
                                "algo": a,
                                "iterations": n,
                                "seed": seed,
                                "solver": s,
                                **r,
                                "load": os.getloadavg()[0],
                            }
                            common.append_jsonl(args.out, row)
                            done[k] = row
                            print(json.dumps(row), flush=True)
    kept = table(done, games, sizes, args.seeds)
    print("\nbluff's mean <= OpenSpiel's + combined SE on every complete row:", kept)
    if args.ranges:
        lo_hi = [tuple(int(x) for x in r.split("-")) for r in args.ranges.split(",")]
        print()
        range_table(
            done, games, sizes, args.algos.split(","), [range(lo, hi + 1) for lo, hi in lo_hi]
        )


if __name__ == "__main__":
    main()
