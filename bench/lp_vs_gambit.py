#!/usr/bin/env python3
"""Times bluff's exact LP against pygambit's lp_solve on the same games, side by side.

Usage: lp_vs_gambit.py BLUFF_BIN OUT_DIR GAME_SPEC...

For each game spec: `bluff export SPEC -o OUT_DIR/<name>.efg`, then
`bluff solve OUT_DIR/<name>.efg --algo lp --json` (exact, certified; bluff's own build + solve
time from its JSON, like Gambit's solve time below, which excludes reading the file), then pygambit's `lp_solve(rational=True)` and
`lp_solve(rational=False)` on the .efg, each in its own process capped at 300 s ("did not
finish" past that). Prints a table of seconds and ratios, and the game values each found.
"""
import json
import os
import re
import subprocess
import sys
import time

CAP = float(os.environ.get("GAMBIT_CAP_SECONDS", "300"))

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


def slug(spec):
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


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
        out, _, err = run_timed([bluff, "solve", efg, "--algo", "lp", "--json"])
        if err:
            row["bluff"] = err
        else:
            r = json.loads(out)
            row["bluff_s"] = r["seconds"]["solve_total"] + r["seconds"]["build"]
            row["bluff_value"] = r["value_p1"]["exact"]
            row["bluff_float"] = r["value_p1"]["float"]
            row["sequences"] = r["sequences"]
        for key, flag in (("gambit_exact", "1"), ("gambit_float", "0")):
            out, _, err = run_timed([sys.executable, "-c", GAMBIT_CHILD, efg, flag], CAP)
            if err:
                row[key] = err
            else:
                r = json.loads(out)
                row[key + "_s"] = r["solve"]
                row[key + "_value"] = r["value"]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    def cell(row, key):
        return f"{row[key + '_s']:.3f}" if key + "_s" in row else row.get(key, "-")

    print("| game | sequences | bluff exact LP (s) | gambit lp rational (s) | gambit lp float (s) | "
          "gambit exact / bluff | bluff value | gambit exact value |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        ratio = "-"
        if "bluff_s" in row and "gambit_exact_s" in row:
            ratio = f"{row['gambit_exact_s'] / row['bluff_s']:.0f}x"
        elif "bluff_s" in row and row.get("gambit_exact") == "did not finish":
            ratio = f"> {CAP / row['bluff_s']:.0f}x"
        seqs = "+".join(map(str, row.get("sequences", []))) or "-"
        print(f"| {row['game']} | {seqs} | {cell(row, 'bluff')} | {cell(row, 'gambit_exact')} | "
              f"{cell(row, 'gambit_float')} | {ratio} | {row.get('bluff_value', '-')} | "
              f"{row.get('gambit_exact_value', '-')} |")


if __name__ == "__main__":
    main()
