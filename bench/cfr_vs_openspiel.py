"""Side-by-side CFR / CFR+ benchmark: bluff against OpenSpiel's C++ solvers (via pyspiel).

Run through bench/cfr_vs_openspiel.sh, which builds bluff and prepares the venv.
For each game and algorithm both solvers run the same number of iterations; exploitability of
the average policy is reported by each tool's own evaluator (they should agree: both use
alternating updates, and CFR+ uses regret matching+ with linear averaging in both).
Iterations per second exclude game loading and exploitability evaluation for both tools. The
machine is shared, so each rate is the best of REPS runs taken in turns (OpenSpiel, bluff with
one thread, bluff with two threads), which keeps a burst of load from favouring either side.
"""

import json
import subprocess
import sys
import time

import pyspiel

BLUFF = sys.argv[1]
REPS = 3
CASES = [
    # game, algo, iterations compared, iterations for bluff's timing
    ("kuhn_poker", "kuhn", "cfr", 1000, 100000),
    ("kuhn_poker", "kuhn", "cfr+", 1000, 100000),
    ("leduc_poker", "leduc", "cfr", 100, 3000),
    ("leduc_poker", "leduc", "cfr+", 100, 3000),
]


def openspiel(game_name, algo, iterations):
    game = pyspiel.load_game(game_name)
    solver = pyspiel.CFRSolver(game) if algo == "cfr" else pyspiel.CFRPlusSolver(game)
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    return iterations / seconds, pyspiel.exploitability(game, solver.average_policy())


def bluff(game, algo, iterations, threads):
    # OpenSpiel's vanilla CFRSolver alternates updates; bluff's cfr defaults to simultaneous.
    args = [
        BLUFF,
        "solve",
        game,
        "--algo",
        algo,
        "--iterations",
        str(iterations),
        "--json",
        "--threads",
        str(threads),
        "--check-every",
        str(iterations),
    ]
    if algo == "cfr":
        args += ["--updates", "alternating"]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return out["iterations_per_second"], out["exploitability"]


def main():
    header = (
        "game",
        "algo",
        "iters",
        "expl OpenSpiel",
        "expl bluff",
        "OpenSpiel it/s",
        "bluff 1t it/s",
        "ratio 1t",
        "bluff 2t it/s",
        "ratio 2t",
    )
    rows = []
    for os_game, game, algo, iterations, timing_iterations in CASES:
        _, bluff_expl = bluff(game, algo, iterations, 1)
        os_rate = rate1 = rate2 = 0.0
        for _ in range(REPS):
            r, os_expl = openspiel(os_game, algo, iterations)
            os_rate = max(os_rate, r)
            rate1 = max(rate1, bluff(game, algo, timing_iterations, 1)[0])
            rate2 = max(rate2, bluff(game, algo, timing_iterations, 2)[0])
        rows.append(
            (
                game,
                algo,
                str(iterations),
                f"{os_expl:.6e}",
                f"{bluff_expl:.6e}",
                f"{os_rate:.1f}",
                f"{rate1:.0f}",
                f"{rate1 / os_rate:.0f}x",
                f"{rate2:.0f}",
                f"{rate2 / os_rate:.0f}x",
            )
        )
        print(" ".join(rows[-1]), file=sys.stderr, flush=True)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]

    def line(r):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    print(
        f"\nOpenSpiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}: "
        "pyspiel.CFRSolver / pyspiel.CFRPlusSolver (C++), exploitability by "
        "pyspiel.exploitability; bluff: `bluff solve --json` (f64 evaluation by src/eval.rs)."
    )


if __name__ == "__main__":
    main()
