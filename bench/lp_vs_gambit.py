#!/usr/bin/env python3
"""Times bluff's exact LP against pygambit's lp_solve on the same games, side by side.

Usage: lp_vs_gambit.py BLUFF_BIN OUT_DIR GAME_SPEC...

For each game spec: `bluff export SPEC -o OUT_DIR/<name>.efg`, then `bluff solve
OUT_DIR/<name>.efg --algo lp --json` (exact, certified; bluff's own build + solve time from its
JSON, like Gambit's solve time below, which excludes reading the file), then pygambit's
`lp_solve(rational=True)` and `lp_solve(rational=False)` on the .efg, each in its own process
capped at 300 s ("did not finish" past that). Runs shorter than 10 s are made 3 times and the
best time kept. Prints a table of seconds and ratios, and the game values each found.
"""

import json
import os
import subprocess
import sys
import time

from common import slug

CAP = float(os.environ.get("GAMBIT_CAP_SECONDS", "300"))
REPEAT_BELOW = 10.0

GAMBIT_CHILD = r"""
import sys, time, json
import pygambit as gbt
path, rational = sys.argv[1], sys.argv[2] == "1"
t0 = time.perf_counter()
g = gbt.read_efg(path) if hasattr(gbt, "read_efg") else gbt.Game.read_game(path)
t1 = time.perf_counter()
res = gbt.nash.lp_solve(g, rational=rational, use_strategic=False)
t2 = time.perf_counter()
eq = res.equilibria[0]
value = eq.payoff(list(g.players)[0])
print(json.dumps({"read": t1 - t0, "solve": t2 - t1, "value": str(value)}))
"""


def run_timed(cmd, cap=None):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "did not finish"
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, (p.stderr.strip().splitlines() or ["failed"])[-1]
    return p.stdout, dt, None


def main():
    bluff, out_dir = sys.argv[1], sys.argv[2]
    specs = sys.argv[3:]
    rows = []
    for spec in specs:
        efg = os.path.join(out_dir, slug(spec) + ".efg")
        row = {"game": spec}
        _, _, err = run_timed([bluff, "export", spec, "-o", efg])
        if err:
            row["bluff"] = row["gambit_exact"] = row["gambit_float"] = f"no .efg: {err}"
            rows.append(row)
            continue
        # Runs under REPEAT_BELOW seconds are repeated (3 in all) and the best time kept, for
        # both tools alike.
        for _ in range(3):
            out, _, err = run_timed([bluff, "solve", efg, "--algo", "lp", "--json"])
            if err:
                row["bluff"] = err
                break
            r = json.loads(out)
            t = r["seconds"]["solve_total"] + r["seconds"]["build"]
            row["bluff_s"] = min(t, row.get("bluff_s", t))
            row["bluff_value"] = r["value_p1"]["exact"]
            row["bluff_float"] = r["value_p1"]["float"]
            row["sequences"] = r["sequences"]
            if t >= REPEAT_BELOW:
                break
        for key, flag in (("gambit_exact", "1"), ("gambit_float", "0")):
            for _ in range(3):
                out, _, err = run_timed([sys.executable, "-c", GAMBIT_CHILD, efg, flag], CAP)
                if err:
                    row[key] = err
                    break
                r = json.loads(out)
                row[key + "_s"] = min(r["solve"], row.get(key + "_s", r["solve"]))
                row[key + "_value"] = r["value"]
                if r["solve"] >= REPEAT_BELOW:
                    break
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    def seconds(t):
        return f"{t * 1000:.2f} ms" if t < 1 else f"{t:.2f} s"

    def cell(row, key):
        return seconds(row[key + "_s"]) if key + "_s" in row else row.get(key, "-")

    def ratio(row, key):
        if "bluff_s" not in row:
            return "-"
        if key + "_s" in row:
            return f"{row[key + '_s'] / row['bluff_s']:.0f}x"
        if row.get(key) == "did not finish":
            return f"> {CAP / row['bluff_s']:.0f}x"
        return "-"

    print(
        "| game | sequences | bluff exact LP | Gambit LP rational | Gambit LP float | "
        "Gambit rational / bluff | Gambit float / bluff | values agree |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        seqs = "+".join(map(str, row.get("sequences", []))) or "-"
        agree = "-"
        if "gambit_exact_value" in row and "bluff_value" in row:
            agree = "yes" if row["gambit_exact_value"] == row["bluff_value"] else "NO"
        print(
            f"| {row['game']} | {seqs} | {cell(row, 'bluff')} | {cell(row, 'gambit_exact')} | "
            f"{cell(row, 'gambit_float')} | {ratio(row, 'gambit_exact')} | "
            f"{ratio(row, 'gambit_float')} | {agree} |"
        )
    print()
    for row in rows:
        if "bluff_value" in row:
            print(f"{row['game']}: bluff's exact value {row['bluff_value']}")


if __name__ == "__main__":
    main()
