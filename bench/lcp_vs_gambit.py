#!/usr/bin/env python3
"""Times bluff's exact LCP against pygambit's lcp_solve on the same games, side by side.

Usage: lcp_vs_gambit.py BLUFF_BIN OUT_DIR GAME_SPEC...

For each game spec: `bluff export SPEC -o OUT_DIR/<name>.efg`, then `bluff solve
OUT_DIR/<name>.efg --algo lcp --json` (one equilibrium, exact and certified by exact best
responses; bluff's seconds from its JSON: the LCP's build, path, exact solve and certificate,
not reading the file), then pygambit's `lcp_solve(game, rational=True)` and
`lcp_solve(game, rational=False)` on the .efg (the sequence form, pygambit's default for a tree;
it takes no `stop_after` there; the solve only, not reading the file), each in its own
process, stopped at GAMBIT_CAP_SECONDS (600). Prints a table of seconds and ratios, and both
players' values.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import slug  # noqa: E402

CAP = float(os.environ.get("GAMBIT_CAP_SECONDS", "600"))

GAMBIT_CHILD = r"""
import sys, time, json
import pygambit as gbt
path, rational = sys.argv[1], sys.argv[2] == "1"
g = gbt.read_efg(path)
t0 = time.perf_counter()
res = gbt.nash.lcp_solve(g, rational=rational, use_strategic=False)
t1 = time.perf_counter()
eq = res.equilibria[0]
values = [str(eq.payoff(p)) for p in g.players]
print(json.dumps({"solve": t1 - t0, "values": values}))
"""


def run_timed(cmd, cap=None):
    """Runs `cmd`; returns (stdout, seconds, error or None)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "timeout"
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, (p.stderr.strip().splitlines() or ["failed"])[-1]
    return p.stdout, dt, None


def main():
    bluff, out_dir = sys.argv[1], sys.argv[2]
    rows = []
    for spec in sys.argv[3:]:
        efg = os.path.join(out_dir, slug(spec) + ".efg")
        row = {"game": spec}
        _, _, err = run_timed([bluff, "export", spec, "-o", efg])
        if err:
            row["bluff"] = f"no .efg: {err}"
            rows.append(row)
            continue
        out, _, err = run_timed([bluff, "solve", efg, "--algo", "lcp", "--json"])
        if err:
            row["bluff"] = err
        else:
            r = json.loads(out)
            row["bluff_s"] = r["seconds"]
            row["bluff_values"] = [r["value_p1"]["exact"], r["value_p2"]["exact"]]
            row["bluff_float"] = [r["value_p1"]["float"], r["value_p2"]["float"]]
            row["rows"] = r["lcp_rows"]
            row["pivots"] = r["pivots"]
            row["route"] = r.get("route", "")
        for key, flag in (("gambit_rational", "1"), ("gambit_float", "0")):
            out, _, err = run_timed([sys.executable, "-c", GAMBIT_CHILD, efg, flag], CAP)
            if err:
                row[key] = f"> {CAP:.0f} s" if err == "timeout" else err
                continue
            r = json.loads(out)
            row[key + "_s"] = r["solve"]
            row[key + "_values"] = r["values"]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    def seconds(t):
        return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"

    def cell(row, key):
        return seconds(row[key + "_s"]) if key + "_s" in row else row.get(key, "-")

    def ratio(row, key):
        if "bluff_s" not in row:
            return "-"
        if key + "_s" in row:
            return f"{row[key + '_s'] / row['bluff_s']:.0f}x"
        if str(row.get(key, "")).startswith(">"):
            return f"> {CAP / row['bluff_s']:.0f}x"
        return "-"

    print(
        "| game | LCP rows | bluff exact (pivots) | Gambit rational | Gambit float | "
        "Gambit rational / bluff | Gambit float / bluff |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        pivots = f" ({row['pivots']})" if "pivots" in row else ""
        print(
            f"| {row['game']} | {row.get('rows', '-')} | {cell(row, 'bluff')}{pivots} | "
            f"{cell(row, 'gambit_rational')} | {cell(row, 'gambit_float')} | "
            f"{ratio(row, 'gambit_rational')} | {ratio(row, 'gambit_float')} |"
        )
    print()
    for row in rows:
        if "bluff_values" in row:
            line = f"{row['game']}: bluff {row['bluff_values'][0]}, {row['bluff_values'][1]}"
            if "gambit_rational_values" in row:
                line += f"; Gambit rational {', '.join(row['gambit_rational_values'])}"
            if "gambit_float_values" in row:
                line += f"; Gambit float {', '.join(row['gambit_float_values'])}"
            print(line)


if __name__ == "__main__":
    main()
