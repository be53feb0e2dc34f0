"""OpenSpiel's C++ CFRPlusSolver alone on one game: set-up, then iterations for CAP seconds
with no exploitability evaluation (for games where bench/python_vs_peers.py's runs, which
evaluate, run out of time or memory). Prints each iteration's end time on stderr and a JSON
summary: set-up, iterations, seconds, it/s, the fastest iteration, peak RSS.

Usage: bench/.venv-py/bin/python bench/openspiel_cfr_rate.py GAME CAP
"""

from __future__ import annotations

import json
import resource
import sys
import time

import pyspiel


def main() -> None:
    name, cap = sys.argv[1], float(sys.argv[2])
    game = pyspiel.load_game(name)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(game)
    setup = time.perf_counter() - start
    iterations, fastest = 0, float("inf")
    start = time.perf_counter()
    while time.perf_counter() - start < cap:
        before = time.perf_counter()
        solver.evaluate_and_update_policy()
        fastest = min(fastest, time.perf_counter() - before)
        iterations += 1
        print(iterations, time.perf_counter() - start, file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    out = {
        "setup": setup,
        "iterations": iterations,
        "seconds": seconds,
        "it_per_s": iterations / seconds,
        "fastest_iteration": fastest,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
