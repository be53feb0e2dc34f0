#!/usr/bin/env python3
"""bluff's exact sequence-form LP against HiGHS's float LP, side by side, with ratios.

Usage: lp_vs_highs.py BLUFF_BIN OUT_DIR [--repeats N] GAME_SPEC...

For each game spec:
1. Untimed: `bluff solve SPEC --algo lp --json --write-mps OUT_DIR/<name>.mps` writes the LP
   bluff solves (the merged sequence form).
2. bluff, N times (default 3): `bluff solve SPEC --algo lp --json --threads 1`. Its time is
   the whole exact solve as the JSON reports it, `seconds.build + seconds.solve_total` (wall):
   the LP build (with the DCFR crash start), the float simplex, the exact recompute and the
   exact LP certificate; not the game build, not the best-response certificate. The process's
   peak resident memory comes from the OS (`wait4`).
3. HiGHS, N times per solver: the LP read from the MPS file (untimed), then a fresh `Highs`
   (one thread, presolve on as by default) timed (wall) around `passModel` (its LP build)
   and `run()`, once with `solver=simplex` and once with `solver=ipm` (with crossover, as by
   default). The anchor is the faster of the two medians.

The row's ratio is bluff's median over the anchor. Rows whose bluff median is under 0.2 s are
within the target at `ratio <= 1 + 0.02 s / anchor` (process noise). After the table, the
exponents `k` of `time ~ sequences^k` are fitted (least squares in logs) for bluff and the
anchor over the liars dice rows and over all rows. Prints Markdown.
"""

import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

import highspy


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def run_bluff(bluff: str, spec: str, *extra: str) -> tuple[dict, int]:
    """One `bluff solve --algo lp --json` run: (JSON, the process's peak RSS in bytes)."""
    cmd = [bluff, "solve", spec, "--algo", "lp", "--json", *extra]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert p.stdout is not None
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit status {p.returncode}")
    return json.loads(out), usage.ru_maxrss * 1024


def bluff_runs(bluff: str, spec: str, repeats: int) -> tuple[list[float], dict, int]:
    """Seconds (build + solve) of each run, the last JSON and the largest peak RSS."""
    times, peak, last = [], 0, {}
    for _ in range(repeats):
        last, rss = run_bluff(bluff, spec, "--threads", "1")
        s = last["seconds"]
        times.append(s["build"] + s["solve_total"])
        peak = max(peak, rss)
    return times, last, peak


def highs_lp(mps: str):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.readModel(mps)
    return h.getLp()


def highs_run(lp, solver: str, tight: bool = False) -> tuple[float, int, float]:
    """One HiGHS build + solve: (wall s, simplex iterations, objective)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", solver)
    if tight:
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            h.setOptionValue(option, 1e-10)
    t0 = time.perf_counter()
    h.passModel(lp)
    h.run()
    dt = time.perf_counter() - t0
    status = h.modelStatusToString(h.getModelStatus())
    if status != "Optimal":
        raise RuntimeError(f"HiGHS ({solver}): {status}")
    info = h.getInfo()
    return dt, info.simplex_iteration_count, info.objective_function_value


def fit(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs = [math.log(s) for s, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def fraction(text: str) -> float:
    num, _, den = text.partition("/")
    return int(num) / int(den or "1")


def main() -> None:
    args = sys.argv[1:]
    bluff, out_dir = args[0], args[1]
    repeats = 3
    if len(args) > 3 and args[2] == "--repeats":
        repeats = int(args[3])
        games = args[4:]
    else:
        games = args[2:]
    os.makedirs(out_dir, exist_ok=True)
    print(f"HiGHS {highspy.Highs().version()} (highspy), one thread; median of {repeats} runs")
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    print()
    print(
        "| game | sequences per player | LP rows x cols | bluff exact (s) | float pivots "
        "| peak memory | HiGHS simplex (s), iterations | HiGHS IPM (s) | ratio | target "
        "| exact value (player 1) | HiGHS value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for spec in games:
        mps = f"{out_dir}/{slug(spec)}.mps"
        run_bluff(bluff, spec, "--write-mps", mps)
        times, b, peak = bluff_runs(bluff, spec, repeats)
        lp = highs_lp(mps)
        simplex = [highs_run(lp, "simplex") for _ in range(repeats)]
        ipm = [highs_run(lp, "ipm") for _ in range(repeats)]
        t_b = statistics.median(times)
        t_s = statistics.median(r[0] for r in simplex)
        t_i = statistics.median(r[0] for r in ipm)
        anchor = min(t_s, t_i)
        ratio = t_b / anchor
        limit = 1.0 + (0.02 / anchor if t_b < 0.2 else 0.0)
        met = "met" if ratio <= limit else "missed"
        exact = b["value_p1"]["exact"]
        h_value = simplex[0][2]
        if abs(h_value - fraction(exact)) > 1e-6:
            raise RuntimeError(f"{spec}: HiGHS {h_value} against exact {exact}")
        seqs = b["sequences"][0]
        rows.append((spec, seqs, t_b, anchor))
        print(
            f"| {spec} | {seqs} | {b['lp_rows']} x {b['lp_vars']} | {t_b:.3f} | "
            f"{b['float_pivots']} | {peak / 1e6:.0f} MB | {t_s:.3f}, {simplex[0][1]} | "
            f"{t_i:.3f} | {ratio:.2f}x | {met} | {exact} | {h_value:.12f} |",
            flush=True,
        )
    print()
    for name, subset in (
        ("liars dice", [r for r in rows if r[0].startswith("liars-dice")]),
        ("all rows", rows),
    ):
        if len({r[1] for r in subset}) >= 2:
            kb = fit([(r[1], r[2]) for r in subset])
            kh = fit([(r[1], r[3]) for r in subset])
            print(
                f"fitted exponent of time ~ sequences^k, {name}: bluff {kb:.2f}, HiGHS {kh:.2f}"
            )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")


if __name__ == "__main__":
    main()
