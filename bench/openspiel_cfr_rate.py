"""OpenSpiel's C++ CFRPlusSolver alone on one game: set-up, then iterations for CAP seconds
with no exploitability evaluation (for games where bench/python_vs_peers.py's runs, which
evaluate, run out of time or memory). Prints each iteration's end time on stderr and a JSON
summary: set-up, iterations, seconds, it/s, the fastest iteration, peak RSS, and the same
in CPU time of the process (not inflated by a loaded machine).

Usage: bench/.venv/bin/python bench/openspiel_cfr_rate.py GAME CAP
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
    start, start_cpu = time.perf_counter(), time.process_time()
    solver = pyspiel.CFRPlusSolver(game)
    setup = time.perf_counter() - start
    setup_cpu = time.process_time() - start_cpu
    iterations, fastest, fastest_cpu = 0, float("inf"), float("inf")
    start, start_cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < cap:
        before, before_cpu = time.perf_counter(), time.process_time()
        solver.evaluate_and_update_policy()
        fastest = min(fastest, time.perf_counter() - before)
        fastest_cpu = min(fastest_cpu, time.process_time() - before_cpu)
        iterations += 1
        print(iterations, time.perf_counter() - start, file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - start_cpu
    out = {
        "setup": setup,
        "setup_cpu": setup_cpu,
        "iterations": iterations,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "it_per_s": iterations / seconds,
        "cpu_per_iteration": cpu / max(iterations, 1),
        "fastest_iteration": fastest,
        "fastest_iteration_cpu": fastest_cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
