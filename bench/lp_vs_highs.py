#!/usr/bin/env python3
"""Times bluff's exact LP against HiGHS's float simplex (and microlp's) on the same LPs.

Usage: lp_vs_highs.py BLUFF_BIN MICROLP_BIN OUT_DIR GAME_SPEC...

For each game spec:
1. Untimed: `bluff solve SPEC --algo lp --json --lp-form F --write-mps OUT_DIR/<name>.F.mps`
   writes the game's sequence-form LP in both forms: `textbook` (one variable or row per
   sequence, the LP of the literature) and `merged` (what bluff solves: one-action information
   sets' sequences merged into their parents', which HiGHS's presolve also finds in the
   textbook LP).
2. Timed: `bluff solve SPEC --algo lp --json --threads 1` (no MPS writing; one worker thread,
   as HiGHS runs with one). bluff's figure is the whole process's CPU time (user + system, from
   the OS): process start, building the game, building the LP, the float simplex, the exact
   recompute and the exact best-response certificate, and printing the JSON. That is more
   than HiGHS's figure covers, so the ratio is conservative. The in-process phase seconds
   (build + solve + certify, wall, from the JSON) are shown beside it.
3. HiGHS reads each MPS file (untimed) and runs its simplex (`solver=simplex`, one thread,
   its presolve on as by default), timed around `run()` alone, CPU (`time.process_time`).
4. microlp (pure-Rust float simplex, a candidate basis finder) solves the merged MPS file,
   timed around its `solve()` (stopped after 300 s).

bluff and HiGHS are each run until REPEATS runs or MIN_SECONDS seconds have passed (at least
once) and the fastest run is kept, since the machine may be shared. The ratio is bluff's
whole-process CPU over HiGHS's CPU, against HiGHS on each form: on the textbook LP HiGHS does
the merging in its timed presolve, as bluff does in its timed LP build; on the merged LP it
gets that work done for it, untimed. Prints a Markdown table.
"""

import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import highspy

T = TypeVar("T")


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


REPEATS = 3
MIN_SECONDS = 2.0


def fastest(run: Callable[[], T], cpu: Callable[[T], float]) -> T:
    """The run of least CPU time among up to REPEATS runs (fewer past MIN_SECONDS)."""
    best: T | None = None
    start = time.perf_counter()
    for _ in range(REPEATS):
        r = run()
        if best is None or cpu(r) < cpu(best):
            best = r
        if time.perf_counter() - start > MIN_SECONDS:
            break
    assert best is not None
    return best


def bluff_cmd(bluff: str, spec: str, *extra: str) -> list[str]:
    return [bluff, "solve", spec, "--algo", "lp", "--json", *extra]


def bluff_write_mps(bluff: str, spec: str, form: str, mps: str) -> None:
    """Writes the LP of the given form (untimed)."""
    cmd = bluff_cmd(bluff, spec, "--lp-form", form, "--write-mps", mps)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")


def bluff_run(bluff: str, spec: str) -> tuple[dict, float, float]:
    """One timed single-threaded solve: (JSON, wall s, whole-process CPU s)."""
    cmd = bluff_cmd(bluff, spec, "--threads", "1")
    cpu0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout), wall, cpu


def highs_run(mps: str) -> tuple[float, float, int, float]:
    """One HiGHS simplex solve: (wall s, CPU s, iterations, objective), `run()` alone timed."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("threads", 1)
    h.readModel(mps)
    t0, c0 = time.perf_counter(), time.process_time()
    h.run()
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    status = h.modelStatusToString(h.getModelStatus())
    if status != "Optimal":
        raise RuntimeError(f"HiGHS on {mps}: {status}")
    info = h.getInfo()
    return dt, dc, info.simplex_iteration_count, info.objective_function_value


def highs_lp_size(mps: str) -> str:
    """`rows x cols` of an MPS file as HiGHS reads it."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(mps)
    lp = h.getLp()
    return f"{lp.num_row_} x {lp.num_col_}"


MICROLP_LIMIT_S = 300


def microlp_run(binary: str, mps: str) -> str:
    try:
        p = subprocess.run([binary, mps], capture_output=True, text=True, timeout=MICROLP_LIMIT_S)
    except subprocess.TimeoutExpired:
        return f"> {MICROLP_LIMIT_S} (stopped)"
    if p.returncode != 0:
        return "failed"
    r = json.loads(p.stdout)
    if "error" in r:
        return f"{r['error']} after {r['seconds']:.2f}"
    return f"{r['seconds']:.3f}"


def main() -> None:
    bluff, microlp, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    print(f"HiGHS {highspy.Highs().version()} (highspy), simplex, 1 thread; microlp 0.2.11")
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    print()
    print(
        "| game | LP rows x vars, textbook -> merged | bluff whole process wall / CPU (s) "
        "| bluff in-process build + solve + certify (s) | bluff float / exact pivots "
        "| HiGHS CPU (s), iterations: textbook LP | merged LP | ratio (CPU) to HiGHS on "
        "textbook / merged | microlp, merged (s) | exact value (player 1) | HiGHS value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in sys.argv[4:]:
        mps = {form: f"{out_dir}/{slug(spec)}.{form}.mps" for form in ("textbook", "merged")}
        for form, path in mps.items():
            bluff_write_mps(bluff, spec, form, path)
        b, b_wall, b_cpu = fastest(partial(bluff_run, bluff, spec), lambda r: r[2])
        s = b["seconds"]
        phases = f"{s['build']:.3f} + {s['solve_total']:.3f} + {s['certify']:.3f}"
        rows = highs_lp_size(mps["textbook"])
        h = {form: fastest(partial(highs_run, path), lambda r: r[1]) for form, path in mps.items()}
        values = {f"{r[3]:.12f}" for r in h.values()}
        if len(values) != 1:
            raise RuntimeError(f"HiGHS's optimum differs between the two forms: {values}")
        m = microlp_run(microlp, mps["merged"])
        ratio = " / ".join(f"{b_cpu / max(h[f][1], 1e-9):.1f}x" for f in ("textbook", "merged"))
        print(
            f"| {spec} | {rows} -> {b['lp_rows']} x {b['lp_vars']} | "
            f"{b_wall:.3f} / {b_cpu:.3f} | {phases} | "
            f"{b['float_pivots']} / {b['exact_pivots']} | "
            f"{h['textbook'][1]:.3f}, {h['textbook'][2]} | "
            f"{h['merged'][1]:.3f}, {h['merged'][2]} | "
            f"{ratio} | {m} | {b['value_p1']['exact']} | {values.pop()} |",
            flush=True,
        )
    load = os.getloadavg()
    print()
    print(f"load average at the end: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")


if __name__ == "__main__":
    main()
