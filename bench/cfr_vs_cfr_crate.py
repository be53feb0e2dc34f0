"""bluff's vanilla CFR against the `cfr` crate (v0.6.2) on the same .efg files, in one run.

Run through bench/cfr_vs_cfr_crate.sh, which installs the crate and builds bluff. Both tools
run vanilla CFR with simultaneous updates and no sampling (`cfr -m full -d vanilla`); equal
iterates are checked by comparing the crate's summed player regrets with bluff's NashConv at
the same iteration count. The crate's rate is (N - 1) / (time(N) - time(1)) so that loading
the file cancels out; bluff's excludes loading and exploitability evaluation. Each wall rate
is the best of REPS runs. Instruction counts per iteration come from callgrind on the small
games: for the crate the difference of two runs (loading cancels), for bluff the instructions
inside `CfrSolver::iterate` (bluff evaluates exploitability during a run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

BLUFF, CFR = sys.argv[1], sys.argv[2]
REPS = 2
# spec, iterations compared, iterations timed, callgrind iterations (0 = skip)
CASES = [
    ("kuhn", 1000, 20000, 2000),
    ("leduc", 100, 300, 40),
    ("liars-dice", 5, 20, 0),
    ("goofspiel(cards=5)", 2, 4, 0),
]


def run(args: list[str]) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def crate_run(efg: str, iterations: int) -> tuple[float, float]:
    start = time.perf_counter()
    out = json.loads(run([CFR, "-i", efg, "-m", "full", "-d", "vanilla", "-p", "1",
                          "-t", str(iterations)]))
    return time.perf_counter() - start, out["player_one_regret"] + out["player_two_regret"]


def bluff_run(spec: str, iterations: int, threads: int) -> dict:
    return json.loads(run([BLUFF, "solve", spec, "--algo", "cfr", "--iterations",
                           str(iterations), "--threads", str(threads), "--json",
                           "--check-every", str(iterations)]))


def callgrind(args: list[str], only: str | None = None) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        toggle = [f"--toggle-collect={only}"] if only else []
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + toggle
                       + args, check=True, capture_output=True)
        for line in open(out):
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no callgrind total")


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec, n_cmp, n_time, n_cg in CASES:
            efg = os.path.join(d, "game.efg")
            run([BLUFF, "export", spec, "-o", efg])
            b = bluff_run(spec, n_cmp, 1)
            _, crate_nc = crate_run(efg, n_cmp)
            equal = abs(crate_nc - b["nash_conv"]) <= 1e-6 * max(1.0, abs(b["nash_conv"]))
            crate_rate = rate1 = rate2 = 0.0
            for _ in range(REPS):
                t1, _ = crate_run(efg, 1)
                tn, _ = crate_run(efg, n_time)
                crate_rate = max(crate_rate, (n_time - 1) / max(tn - t1, 1e-9))
                rate1 = max(rate1, bluff_run(spec, n_time, 1)["iterations_per_second"])
                rate2 = max(rate2, bluff_run(spec, n_time, 2)["iterations_per_second"])
            cg = "-"
            if n_cg:
                lo, hi = n_cg // 4, n_cg
                crate = [CFR, "-i", efg, "-m", "full", "-d", "vanilla", "-p", "1", "-t"]
                crate_ir = (callgrind(crate + [str(hi)]) - callgrind(crate + [str(lo)])) / (hi - lo)
                # bluff measures exploitability during a run: count only inside its iterations.
                bluff_ir = callgrind([BLUFF, "solve", spec, "--algo", "cfr", "--threads", "1",
                                      "--json", "--iterations", str(hi)],
                                     only="*CfrSolver::iterate*") / hi
                cg = f"{crate_ir:.0f} / {bluff_ir:.0f} = {crate_ir / bluff_ir:.2f}x"
            rows.append((spec, b["nodes"], n_cmp, f"{crate_nc:.6e}", f"{b['nash_conv']:.6e}",
                         "yes" if equal else "NO", f"{crate_rate:.1f}", f"{rate1:.1f}",
                         f"{rate1 / crate_rate:.2f}x", f"{rate2:.1f}", f"{rate2 / rate1:.2f}x",
                         f"{b['solver_bytes_per_node']:.1f}", cg))
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    header = ("game", "nodes", "iters", "NashConv cfr crate", "NashConv bluff", "equal",
              "crate it/s", "bluff 1t it/s", "bluff/crate", "bluff 2t it/s", "2t speed-up",
              "bluff solver B/node", "callgrind Ir/iter crate / bluff")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
