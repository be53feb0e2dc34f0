#!/usr/bin/env python3
"""Times bluff's exact LP against HiGHS's float simplex on the same sequence-form LP.

Usage: lp_vs_highs.py BLUFF_BIN OUT_DIR GAME_SPEC...

For each game spec: `bluff solve SPEC --algo lp --json --write-mps OUT_DIR/<name>.mps` (bluff's
time is its build + exact solve + certificate from the JSON, excluding the MPS writing), then
HiGHS reads the MPS file and runs its simplex (`solver=simplex`, one thread); HiGHS's time
is `run()` alone. Prints a Markdown table with both values and the ratio bluff / HiGHS.
"""
import json
import re
import subprocess
import sys
import time

import highspy


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def bluff_run(bluff: str, spec: str, mps: str) -> dict:
    cmd = [bluff, "solve", spec, "--algo", "lp", "--json", "--write-mps", mps]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def highs_run(mps: str) -> tuple[float, float]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("threads", 1)
    h.readModel(mps)
    t0 = time.perf_counter()
    h.run()
    dt = time.perf_counter() - t0
    status = h.modelStatusToString(h.getModelStatus())
    if status != "Optimal":
        raise RuntimeError(f"HiGHS on {mps}: {status}")
    return dt, h.getInfo().objective_function_value


def main() -> None:
    bluff, out_dir = sys.argv[1], sys.argv[2]
    print(f"HiGHS {highspy.Highs().version()} (highspy), simplex, 1 thread")
    print()
    print("| game | LP rows x vars | bluff exact+certified (s) | HiGHS simplex (s) | ratio | bluff value | HiGHS value |")
    print("|---|---|---|---|---|---|---|")
    for spec in sys.argv[3:]:
        mps = f"{out_dir}/{slug(spec)}.mps"
        b = bluff_run(bluff, spec, mps)
        s = b["seconds"]
        bluff_s = s["build"] + s["solve_total"] + s["certify"]
        highs_s, highs_v = highs_run(mps)
        print(
            f"| {spec} | {b['lp_rows']} x {b['lp_vars']} | {bluff_s:.3f} | {highs_s:.3f} | "
            f"{bluff_s / highs_s:.1f}x | {b['value_p1']['exact']} | {highs_v:.12f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
