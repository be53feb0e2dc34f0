#!/usr/bin/env python3
"""bluff's exact sequence-form LP against HiGHS's float LP, side by side, with ratios.

Usage: lp_vs_highs.py BLUFF_BIN OUT_DIR [--repeats N] [--callgrind SECONDS] GAME_SPEC...

For each game spec:
1. Untimed: `bluff solve SPEC --algo lp --json --lp-primal P --write-mps
   OUT_DIR/<name>.P.mps`, for P = p1 and p2, writes both players' maximin LPs (the merged
   sequence form; each is the other's LP dual). bluff solves one of them (`--lp-primal auto`,
   its default); HiGHS gets both, so that its anchor is its best on either.
2. N rounds (default 3), each running, one after the other, bluff once, then HiGHS simplex
   and HiGHS interior point once on each LP (interleaved, so that load from other processes
   falls on all alike):
   - bluff: `bluff solve SPEC --algo lp --json --threads 1`. Its time is the whole exact
     solve as the JSON reports it, `seconds.build + seconds.solve_total` (wall): the LP build
     (with the DCFR crash start), the exact presolve and postsolve, the float simplex, the
     exact recompute and the exact LP certificate; not the game build, not the best-response
     certificate. The process's peak resident memory comes from the OS (`wait4`).
   - HiGHS: the LP read from the MPS file (untimed, once), then a fresh `Highs` (one thread,
     presolve on as by default) timed (wall) around `passModel` (its LP build) and `run()`,
     with `solver=simplex` and with `solver=ipm` (crossover on, as by default). The anchor is
     the fastest of the four medians (two solvers, two LPs).
3. With `--callgrind S`, rows whose bluff median is under S seconds are run once more under
   `valgrind --tool=callgrind`, which counts instructions independently of the load: bluff's
   LP build and solve with its LP certificate (what its time covers; the float simplex
   `revised::solve` in brackets) and HiGHS's `passModel` + `run` with the anchor's solver and
   LP.

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
from common import slug, with_peak_rss


def run_bluff(bluff: str, spec: str, *extra: str) -> tuple[dict, int]:
    """One `bluff solve --algo lp --json` run: (JSON, the process's peak RSS in bytes).

    The peak comes from `/usr/bin/time` (GNU time), started by this script: a process forked
    from Python directly would inherit Python's resident size in its peak.
    """
    stdout, peak = with_peak_rss([bluff, "solve", spec, "--algo", "lp", "--json", *extra])
    return json.loads(stdout), peak


def bluff_once(bluff: str, spec: str) -> tuple[float, dict, int]:
    """Seconds (build + solve) of one run, its JSON and its peak RSS."""
    out, rss = run_bluff(bluff, spec, "--threads", "1")
    s = out["seconds"]
    return s["build"] + s["solve_total"], out, rss


def inclusive(out: str, functions: list[str]) -> list[int]:
    """Inclusive instructions of each function in a callgrind file (0 if absent)."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = [0] * len(functions)
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+[^:\s]*:(.*?) \[", line)
        if not m:
            continue
        for k, name in enumerate(functions):
            if m.group(2) == name and not found[k]:
                found[k] = int(m.group(1).replace(",", ""))
    return found


def callgrind_bluff(bluff: str, spec: str, out_dir: str) -> tuple[int, int]:
    """Instructions of one bluff run under callgrind: (what its time covers, float simplex).

    What the time covers is the LP build (`sequence_form::build`) and the solve with its LP
    certificate (`LinearProgram::solve_with`), inclusive.
    """
    out = f"{out_dir}/{slug(spec)}.callgrind"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    cmd += [bluff, "solve", spec, "--algo", "lp", "--json", "--threads", "1"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    build, solve, float_part = inclusive(
        out,
        [
            "bluff::exact::sequence_form::build",
            "bluff::lp::LinearProgram::solve_with",
            "bluff::lp::revised::solve",
        ],
    )
    os.remove(out)
    return build + solve, float_part


def callgrind_highs(mps: str, solver: str, out_dir: str) -> int:
    """Instructions of HiGHS's build + solve (`passModel` and `run`) under callgrind."""
    out = f"{out_dir}/highs.callgrind"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    cmd += ["--toggle-collect=Highs::run()", "--toggle-collect=Highs::passModel(HighsLp)"]
    cmd += [sys.executable, os.path.abspath(__file__), "--highs-once", mps, solver]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = subprocess.run(
        ["callgrind_annotate", out], check=True, capture_output=True, text=True
    ).stdout
    os.remove(out)
    m = re.search(r"([\d,]+) \([^)]*\)\s+PROGRAM TOTALS", text)
    return int(m.group(1).replace(",", "")) if m else 0


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
    if args and args[0] == "--highs-once":
        # One HiGHS build + solve, for callgrind_highs.
        highs_run(highs_lp(args[1]), args[2])
        return
    bluff, out_dir = args[0], args[1]
    args = args[2:]
    repeats, callgrind_max = 3, 0.0
    while args and args[0].startswith("--"):
        if args[0] == "--repeats":
            repeats = int(args[1])
        elif args[0] == "--callgrind":
            callgrind_max = float(args[1])
        else:
            raise SystemExit(f"unknown option {args[0]}")
        args = args[2:]
    games = args
    os.makedirs(out_dir, exist_ok=True)
    print(
        f"HiGHS {highspy.Highs().version()} (highspy), one thread; median of {repeats} "
        "interleaved runs (bluff; HiGHS simplex and IPM on each player's LP)"
    )
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    print()
    cg = ""
    if callgrind_max > 0:
        cg = " | instructions: bluff (float simplex), HiGHS anchor | ratio"
    print(
        "| game | sequences per player | bluff's LP: whose, rows x cols (presolve removed) "
        "| bluff exact (s) | float pivots | peak memory "
        "| HiGHS simplex (s), iterations: P1's LP; P2's LP | HiGHS IPM (s): P1's; P2's "
        f"| ratio | target{cg} | exact value (player 1) | HiGHS value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if cg else ""))
    rows = []
    for spec in games:
        mps = {p: f"{out_dir}/{slug(spec)}.{p}.mps" for p in ("p1", "p2")}
        for p, path in mps.items():
            run_bluff(bluff, spec, "--lp-primal", p, "--write-mps", path)
        lps = {p: highs_lp(path) for p, path in mps.items()}
        times, peak, b = [], 0, {}
        runs = {(p, solver): [] for p in lps for solver in ("simplex", "ipm")}
        for _ in range(repeats):
            t, b, rss = bluff_once(bluff, spec)
            times.append(t)
            peak = max(peak, rss)
            for (p, solver), results in runs.items():
                results.append(highs_run(lps[p], solver))
        t_b = statistics.median(times)
        medians = {key: statistics.median(r[0] for r in results) for key, results in runs.items()}
        best = min(medians, key=medians.get)
        anchor = medians[best]
        ratio = t_b / anchor
        limit = 1.0 + (0.02 / anchor if t_b < 0.2 else 0.0)
        met = "met" if ratio <= limit else "missed"
        exact = b["value_p1"]["exact"]
        # Player 2's LP maximises player 2's payoff against -A: its objective is player 1's
        # value negated.
        h_value = runs[("p1", "simplex")][0][2]
        for p, sign in (("p1", 1.0), ("p2", -1.0)):
            got = sign * runs[(p, "simplex")][0][2]
            if abs(got - fraction(exact)) > 1e-6:
                raise RuntimeError(f"{spec}: HiGHS on {p}'s LP {got} against exact {exact}")
        seqs = b["sequences"][0]
        cell, counts = "", None
        if cg:
            if t_b < callgrind_max:
                total, fl = callgrind_bluff(bluff, spec, out_dir)
                h = callgrind_highs(mps[best[0]], best[1], out_dir)
                cell = f" | {total / 1e6:,.0f} M ({fl / 1e6:,.0f} M), {h / 1e6:,.0f} M"
                cell += f" | {total / h:.2f}x"
                counts = (total, h)
            else:
                cell = " | - | -"
        rows.append((spec, seqs, t_b, anchor, counts))
        removed = b.get("presolve_removed", {"rows": 0, "cols": 0})
        pre = (
            f" ({removed['rows']}, {removed['cols']})" if removed["rows"] or removed["cols"] else ""
        )

        cells = {}
        for solver in ("simplex", "ipm"):
            parts = []
            for p in ("p1", "p2"):
                text = f"{medians[(p, solver)]:.3f}"
                if solver == "simplex":
                    text += f", {runs[(p, solver)][0][1]}"
                parts.append(f"**{text}**" if best == (p, solver) else text)
            cells[solver] = "; ".join(parts)
        print(
            f"| {spec} | {seqs} | {b['lp_primal'].upper()}'s, "
            f"{b['lp_rows']} x {b['lp_vars']}{pre} | "
            f"{t_b:.3f} | {b['float_pivots']} | {peak / 1e6:.0f} MB | {cells['simplex']} | "
            f"{cells['ipm']} | {ratio:.2f}x | {met}{cell} | {exact} | {h_value:.12f} |",
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
            print(f"fitted exponent of time ~ sequences^k, {name}: bluff {kb:.2f}, HiGHS {kh:.2f}")
        counted = [r for r in subset if r[4]]
        if len({r[1] for r in counted}) >= 2:
            kb = fit([(r[1], r[4][0]) for r in counted])
            kh = fit([(r[1], r[4][1]) for r in counted])
            print(
                f"fitted exponent of instructions ~ sequences^k, {name}: bluff {kb:.2f}, "
                f"HiGHS {kh:.2f}"
            )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")


if __name__ == "__main__":
    main()
