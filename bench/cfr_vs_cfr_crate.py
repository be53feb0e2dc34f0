"""bluff's vanilla CFR against the `cfr` crate (v0.6.2) on the same .efg files, in one run.

Run through bench/cfr_vs_cfr_crate.sh, which installs the crate and builds bluff. Both tools run
vanilla CFR with simultaneous updates and no sampling (`cfr -m full -d vanilla`) on the same
.efg file (`bluff export`); the iterates are compared through the crate's summed player regrets
(its NashConv) and bluff's NashConv at the same iteration count. The crate keeps cumulative
regrets and current strategies in f32 (`Action` in its src/solve/data.rs) while bluff computes
in f64, so the two agree to f32 rounding, not bit for bit: "equal" means a relative difference
below F32_TOLERANCE, and the difference is printed. The crate's rate is (N - 1) / (time(N) -
time(1)) so that loading the file cancels out (each time the best of REPS runs); bluff's
excludes loading and exploitability evaluation. Each wall rate is the best of REPS runs. The
2-thread speed-up compares 1 and 2 threads run in turns over the iteration count shown beside it
(hundreds on the big games, so that the second thread's start-up is amortised). Instruction
counts per iteration come from callgrind: for the crate the difference of two runs (loading
cancels), for bluff the instructions inside `CfrSolver::iterate` (bluff evaluates exploitability
during a run). The load average is printed: wall rates on a loaded machine are noise.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from common import callgrind, markdown_table, run

BLUFF, CFR = sys.argv[1], sys.argv[2]
REPS = 2
# f32 storage in the crate: relative NashConv difference accepted as the same iterates. The
# rounding differences grow with the iterations (regret matching amplifies them), so iterates
# are compared early: with the crate's f32 rounding emulated, bluff matched it to 1e-15 on
# Kuhn at 1000 iterations and Leduc at 10 (README, "Against the `cfr` crate").
F32_TOLERANCE = 1e-4
# spec, iterations compared, iterations timed, iterations timed at 1 and 2 threads for the
# speed-up column (enough for the second thread to matter: a goofspiel 5 iteration takes ~25 ms),
# callgrind iterations (0 = skip)
CASES = [
    ("kuhn", 100, 20000, 20000, 2000),
    ("leduc", 10, 1000, 1000, 200),
    ("liars-dice", 5, 100, 300, 8),
    ("goofspiel(cards=5,order=descending)", 10, 300, 300, 0),
    ("goofspiel(cards=5)", 2, 41, 100, 0),
]


def crate_run(efg: str, iterations: int) -> tuple[float, float]:
    start = time.perf_counter()
    out = json.loads(
        run([CFR, "-i", efg, "-m", "full", "-d", "vanilla", "-p", "1", "-t", str(iterations)])
    )
    return time.perf_counter() - start, out["player_one_regret"] + out["player_two_regret"]


def bluff_run(spec: str, iterations: int, threads: int) -> dict:
    return json.loads(
        run(
            [
                BLUFF,
                "solve",
                spec,
                "--algo",
                "cfr",
                "--iterations",
                str(iterations),
                "--threads",
                str(threads),
                "--json",
                "--check-every",
                str(iterations),
            ]
        )
    )


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec, n_cmp, n_time, n_thr, n_cg in CASES:
            efg = os.path.join(d, "game.efg")
            run([BLUFF, "export", spec, "-o", efg])
            b = bluff_run(spec, n_cmp, 1)
            _, crate_nc = crate_run(efg, n_cmp)
            rel = abs(crate_nc - b["nash_conv"]) / max(abs(b["nash_conv"]), 1e-300)
            equal = f"yes ({rel:.0e})" if rel <= F32_TOLERANCE else f"NO ({rel:.0e})"
            rate1 = thr1 = rate2 = 0.0
            t1 = tn = float("inf")
            for _ in range(REPS):
                # Best time of each length: loading a big file varies more than an iteration.
                t1 = min(t1, crate_run(efg, 1)[0])
                tn = min(tn, crate_run(efg, n_time)[0])
                rate1 = max(rate1, bluff_run(spec, n_time, 1)["iterations_per_second"])
                # The thread columns: 1 and 2 threads in turns over the same iterations.
                one = (
                    rate1 if n_thr == n_time else bluff_run(spec, n_thr, 1)["iterations_per_second"]
                )
                thr1 = max(thr1, one)
                rate2 = max(rate2, bluff_run(spec, n_thr, 2)["iterations_per_second"])
            crate_rate = (n_time - 1) / max(tn - t1, 1e-9)
            cg = "-"
            if n_cg:
                lo, hi = max(n_cg // 4, 1), n_cg
                crate = [CFR, "-i", efg, "-m", "full", "-d", "vanilla", "-p", "1", "-t"]
                crate_ir = (callgrind(crate + [str(hi)]) - callgrind(crate + [str(lo)])) / (hi - lo)
                # bluff measures exploitability during a run: count only inside its iterations.
                bluff = [
                    BLUFF,
                    "solve",
                    spec,
                    "--algo",
                    "cfr",
                    "--threads",
                    "1",
                    "--json",
                    "--iterations",
                ]
                only = "*CfrSolver::iterate*"
                bluff_ir = (
                    callgrind(bluff + [str(hi)], only) - callgrind(bluff + [str(lo)], only)
                ) / (hi - lo)
                cg = f"{crate_ir:.0f} / {bluff_ir:.0f} = {crate_ir / bluff_ir:.2f}x"
            rows.append(
                (
                    spec,
                    b["nodes"],
                    n_cmp,
                    f"{crate_nc:.6e}",
                    f"{b['nash_conv']:.6e}",
                    equal,
                    f"{crate_rate:.1f}",
                    f"{rate1:.1f}",
                    f"{rate1 / crate_rate:.2f}x",
                    f"{rate2:.1f}",
                    f"{rate2 / thr1:.2f}x ({n_thr})",
                    f"{b['solver_bytes_per_node']:.1f}",
                    cg,
                )
            )
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"load average at the end: {' '.join(load)} on {os.cpu_count()} cores", flush=True)
    header = (
        "game",
        "nodes",
        "iters compared",
        "NashConv cfr crate",
        "NashConv bluff",
        "equal (rel. diff)",
        "crate it/s",
        "bluff 1t it/s",
        "bluff/crate",
        "bluff 2t it/s",
        "2t speed-up (iters)",
        "bluff solver B/node",
        "callgrind Ir/iter crate / bluff",
    )
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
