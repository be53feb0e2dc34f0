"""Where bluff's fixed costs go on a small game (Kuhn poker by default), from Python.

Run with bench/.venv/bin/python (made by bench/python_vs_peers.sh). Each part is timed in
a fresh process as the first call of its kind (cold: what a script pays once) and then as the
median of 200 repeats in the same process (warm); each figure is the median of five processes:

- floor: the bare pyspiel calls any importer must make, in a Python loop that builds nothing
  (current_player, information_state_string, legal_actions, chance_outcomes, returns, child);
- from_openspiel(native=False): bluff's traversal (the same calls, plus building the game);
- from_openspiel() on the native route: get_type() and get_parameters(), then bluff's
  built-in relabelled with OpenSpiel's strings (no pyspiel state is made);
- solver set-up (`setup_seconds`) and ALGO to exploitability 1e-3 (solve seconds, checks
  excluded);
- OpenSpiel's CFRPlusSolver construction.

Usage: python python_setup_breakdown.py [--algo ALGO] [GAME]  (ALGO: default pcfr+)
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Any

# The solver timed in the "solve" part (--algo ALGO; the benchmark's fastest on Kuhn).
ALGO = "pcfr+"


def floor_walk(game: Any) -> int:
    stack = [game.new_initial_state()]
    n = 0
    while stack:
        state = stack.pop()
        n += 1
        player = state.current_player()
        if player == -4:
            state.returns()
            continue
        if player == -1:
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            state.information_state_string(player)
            actions = state.legal_actions()
        for a in actions:
            stack.append(state.child(a))
    return n


def part(name: str, game_name: str) -> dict[str, float]:
    """Times one part: its first call in this process, then the median of 200 more."""
    import pyspiel

    import bluff

    og = pyspiel.load_game(game_name)
    calls = {
        "floor": lambda: floor_walk(og),
        "traversal": lambda: bluff.from_openspiel(og, progress=False, native=False),
        "native": lambda: bluff.from_openspiel(og, progress=False),
        "openspiel_setup": lambda: pyspiel.CFRPlusSolver(og),
    }
    if name == "solve":
        game = bluff.from_openspiel(og, progress=False)
        out: dict[str, float] = {}
        for run in ("cold", "warm"):
            r = bluff.solve(game, algo=ALGO, target=1e-3, threads=1)
            reach = next(s for _, e, s in r.curve if e <= 1e-3)
            out[f"setup_{run}"] = r.setup_seconds
            out[f"solve_{run}"] = reach
        return out
    call = calls[name]
    start = time.perf_counter()
    call()
    cold = time.perf_counter() - start
    times = []
    for _ in range(200):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return {"cold": cold, "warm": statistics.median(times)}


def main() -> None:
    global ALGO
    argv = sys.argv[1:]
    if len(argv) > 1 and argv[0] == "--algo":
        ALGO = argv[1]
        argv = argv[2:]
    if len(argv) > 2 and argv[0] == "--part":
        print(json.dumps(part(argv[1], argv[2])))
        return
    game = argv[0] if argv else "kuhn_poker"

    def run(name: str) -> dict[str, float]:
        """The median of each figure over five fresh processes (robust to a descheduling)."""
        runs = []
        for _ in range(5):
            out = subprocess.run(
                [sys.executable, __file__, "--algo", ALGO, "--part", name, game],
                check=True,
                capture_output=True,
                text=True,
            )
            runs.append(json.loads(out.stdout))
        return {k: statistics.median(r[k] for r in runs) for k in runs[0]}

    us = 1e6
    print(f"{game}: microseconds, first call in a fresh process (cold) / median of 200 (warm),")
    print("each the median of five processes")
    print("| part | cold | warm |")
    print("|---|---|---|")
    for name, what in [
        ("floor", "pyspiel calls alone (Python loop, builds nothing)"),
        ("traversal", "from_openspiel(native=False)"),
        ("native", "from_openspiel() (native route)"),
        ("openspiel_setup", "OpenSpiel CFRPlusSolver construction"),
    ]:
        r = run(name)
        print(f"| {what} | {r['cold'] * us:.0f} | {r['warm'] * us:.0f} |")
    s = run("solve")
    print(f"| bluff solver set-up | {s['setup_cold'] * us:.0f} | {s['setup_warm'] * us:.0f} |")
    print(
        f"| bluff {ALGO} to 1e-3 (solve) | {s['solve_cold'] * us:.0f} | "
        f"{s['solve_warm'] * us:.0f} |"
    )


if __name__ == "__main__":
    main()
