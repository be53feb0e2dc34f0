#!/usr/bin/env python3
"""Times bluff's exact LP against HiGHS's float simplex (and microlp's) on the same LP.

Usage: lp_vs_highs.py BLUFF_BIN MICROLP_BIN OUT_DIR GAME_SPEC...

For each game spec: `bluff solve SPEC --algo lp --json --write-mps OUT_DIR/<name>.mps`; bluff's
time is its LP build + exact solve + exact best-response certificate (from the JSON, without
the MPS writing). HiGHS reads the MPS file and runs its simplex (`solver=simplex`, one thread),
timed around `run()` alone. microlp (pure-Rust float simplex, a candidate basis finder) solves
the same MPS file, timed around its `solve()` (stopped after 300 s). Both wall and CPU seconds are printed: on a
loaded machine the CPU times (and bluff's pivot counts) are the steadier figures, and the
ratio uses CPU time. Prints a Markdown table.
"""
import json
import re
import resource
import subprocess
import sys
import time

import highspy


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bluff_run(bluff: str, spec: str, mps: str) -> tuple[dict, float]:
    cmd = [bluff, "solve", spec, "--algo", "lp", "--json", "--write-mps", mps]
    cpu0 = children_cpu()
    p = subprocess.run(cmd, capture_output=True, text=True)
    cpu = children_cpu() - cpu0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout), cpu


def highs_run(mps: str) -> tuple[float, float, int, float]:
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


MICROLP_LIMIT_S = 300


def microlp_run(binary: str, mps: str) -> str:
    try:
        p = subprocess.run(
            [binary, mps], capture_output=True, text=True, timeout=MICROLP_LIMIT_S
        )
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
    print()
    print(
        "| game | LP rows x vars | bluff exact+certified wall / CPU (s) | bluff float / exact "
        "pivots | HiGHS wall / CPU (s) | HiGHS iterations | ratio (CPU) | microlp (s) "
        "| exact value (player 1) | HiGHS value |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in sys.argv[4:]:
        mps = f"{out_dir}/{slug(spec)}.mps"
        b, b_cpu = bluff_run(bluff, spec, mps)
        s = b["seconds"]
        bluff_s = s["build"] + s["solve_total"] + s["certify"]
        h_wall, h_cpu, h_iters, h_value = highs_run(mps)
        m = microlp_run(microlp, mps)
        print(
            f"| {spec} | {b['lp_rows']} x {b['lp_vars']} | {bluff_s:.3f} / {b_cpu:.3f} | "
            f"{b['float_pivots']} / {b['exact_pivots']} | {h_wall:.3f} / {h_cpu:.3f} | "
            f"{h_iters} | {b_cpu / max(h_cpu, 1e-9):.1f}x | {m} | "
            f"{b['value_p1']['exact']} | {h_value:.12f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
