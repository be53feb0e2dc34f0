"""Side-by-side CFR benchmark: bluff against OpenSpiel's C++ solvers (via pyspiel).

For each game and algorithm both implementations run one solve with the same iteration
checkpoints; at each checkpoint we record cumulative solve time (exploitability evaluation
excluded) and the average strategy's exploitability (OpenSpiel's definition, NashConv / 2).
Both sides use alternating updates (OpenSpiel's CFRSolver/CFRPlusSolver do; bluff's
`RegretParams::vanilla_alternating` / `cfr_plus`), so equal iterations mean equal work.

Usage: python cfr_vs_openspiel.py <path to cfr_throughput binary> [bluff threads...]
Environment: KUHN_ITERS, LEDUC_ITERS (comma-separated checkpoints).
"""

import json
import os
import subprocess
import sys
import time

import pyspiel

GAMES = [
    ("kuhn", "kuhn_poker", os.environ.get("KUHN_ITERS", "1000,10000")),
    ("leduc", "leduc_poker", os.environ.get("LEDUC_ITERS", "100,1000")),
]
ALGOS = [("cfr", pyspiel.CFRSolver), ("cfr+", pyspiel.CFRPlusSolver)]


def openspiel_run(game_name, solver_class, checkpoints):
    game = pyspiel.load_game(game_name)
    solver = solver_class(game)
    rows, done, seconds = [], 0, 0.0
    for target in checkpoints:
        start = time.perf_counter()
        for _ in range(target - done):
            solver.evaluate_and_update_policy()
        seconds += time.perf_counter() - start
        done = target
        e = pyspiel.exploitability(game, solver.average_policy())
        rows.append({"iterations": done, "seconds": seconds, "exploitability": e})
    return rows


def bluff_run(binary, game, algo, threads, checkpoints):
    out = subprocess.run(
        [binary, game, algo, str(threads), ",".join(map(str, checkpoints))],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def main():
    binary = sys.argv[1]
    thread_counts = [int(t) for t in sys.argv[2:]] or [1]
    print(f"pyspiel {getattr(pyspiel, '__version__', '?')}: C++ CFRSolver / CFRPlusSolver")
    header = (
        f"{'game':<6} {'algo':<5} {'iters':>6} | {'OpenSpiel it/s':>14} {'expl':>10} | "
        + " | ".join(f"{'bluff ' + str(t) + 't it/s':>14} {'expl':>10} {'ratio':>7}" for t in thread_counts)
    )
    print(header)
    print("-" * len(header))
    for game, os_name, iters in GAMES:
        checkpoints = [int(x) for x in iters.split(",")]
        for algo, solver_class in ALGOS:
            ours = {t: bluff_run(binary, game, algo, t, checkpoints) for t in thread_counts}
            theirs = openspiel_run(os_name, solver_class, checkpoints)
            for k, ref in enumerate(theirs):
                ref_rate = ref["iterations"] / ref["seconds"]
                line = f"{game:<6} {algo:<5} {ref['iterations']:>6} | {ref_rate:>14.1f} {ref['exploitability']:>10.3e} | "
                cells = []
                for t in thread_counts:
                    row = ours[t][k]
                    assert row["iterations"] == ref["iterations"]
                    rate = row["iterations"] / row["seconds"]
                    cells.append(f"{rate:>14.1f} {row['exploitability']:>10.3e} {rate / ref_rate:>6.1f}x")
                print(line + " | ".join(cells))
    print("it/s = iterations / cumulative solve time at that checkpoint; expl = exploitability of")
    print("the average strategy (NashConv/2, f64); ratio = bluff it/s / OpenSpiel it/s.")


if __name__ == "__main__":
    main()
