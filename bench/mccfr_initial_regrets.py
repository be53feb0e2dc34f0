"""Whether OpenSpiel's initial table values move external sampling's strategies.

OpenSpiel 2.0.2's `ExternalSamplingMCCFRSolver` starts each new entry's cumulative regrets (and
average sums) at 1e-6 (`kInitialTableValues`), bluff's at 0; everything else in the two
traversals is the same (docs/mccfr.md). This runs OpenSpiel's solver on Leduc and, every
EVERY iterations, reads its table (the solver's own serialization, through pickle) and compares
each information set's regret-matching strategy on its regrets R with the strategy on R - 1e-6
(the same increments from 0, as bluff keeps them): how many sets moved by more than 1e-3, and
the largest move of any action's probability.

usage: python bench/mccfr_initial_regrets.py [--iterations 40000] [--every 1000] [--seeds 0,1]
(needs pyspiel: python/.venv has open_spiel 2.0.2). Not for CI.
"""

from __future__ import annotations

import argparse
import pickle

import pyspiel

INITIAL = 1e-6
HEADER = b"[SolverValuesTable]\n"


def regret_matching(regrets: list[float]) -> list[float]:
    """Positive regrets normalised; uniform when none is positive (as both solvers do)."""
    pos = [max(r, 0.0) for r in regrets]
    total = sum(pos)
    return [p / total for p in pos] if total > 0 else [1.0 / len(pos)] * len(pos)


def table_regrets(solver: pyspiel.ExternalSamplingMCCFRSolver) -> list[list[float]]:
    """Each information set's cumulative regrets, from the solver's serialization: entries
    `key<~>actions;regrets;average sums;current policy` joined by `<~>`, numbers in hex."""
    blob = pickle.dumps(solver)
    body = blob[blob.index(HEADER) + len(HEADER) :].split(b"\x94")[0].decode("latin1")
    parts = body.split("<~>")
    return [
        [float.fromhex(x) for x in parts[k].split(";")[1].split(",")]
        for k in range(1, len(parts), 2)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=40_000)
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--seeds", default="0,1")
    args = ap.parse_args()
    game = pyspiel.load_game("leduc_poker")
    for seed in (int(s) for s in args.seeds.split(",")):
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
        checks = sets = moved = 0
        largest = 0.0
        for it in range(1, args.iterations + 1):
            solver.run_iteration()
            if it % args.every:
                continue
            checks += 1
            for regrets in table_regrets(solver):
                a = regret_matching(regrets)
                b = regret_matching([r - INITIAL for r in regrets])
                move = max(abs(x - y) for x, y in zip(a, b))
                sets += 1
                moved += move > 1e-3
                largest = max(largest, move)
        print(
            f"seed {seed}: {checks} checks, {sets} set checks, {moved} sets moved by more than "
            f"1e-3, largest move {largest:.2e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
