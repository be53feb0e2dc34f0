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
import sys

from common import DID_NOT_FINISH, export_efg, gambit_solve, ratio_cell, run_capped, timing_cell

CAP = float(os.environ.get("GAMBIT_CAP_SECONDS", "300"))
REPEAT_BELOW = 10.0


def main():
    bluff, out_dir = sys.argv[1], sys.argv[2]
    specs = sys.argv[3:]
    rows = []
    for spec in specs:
        row = {"game": spec}
        efg, err = export_efg(bluff, spec, out_dir)
        if err:
            row["bluff"] = row["gambit_exact"] = row["gambit_float"] = f"no .efg: {err}"
            rows.append(row)
            continue
        # Runs under REPEAT_BELOW seconds are repeated (3 in all) and the best time kept, for
        # both tools alike.
        for _ in range(3):
            out, _, err = run_capped([bluff, "solve", efg, "--algo", "lp", "--json"])
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
        for key, rational in (("gambit_exact", True), ("gambit_float", False)):
            for _ in range(3):
                r, err = gambit_solve(efg, "lp_solve", rational, CAP)
                if err:
                    row[key] = err
                    break
                row[key + "_s"] = min(r["solve"], row.get(key + "_s", r["solve"]))
                row[key + "_value"] = r["values"][0]
                if r["solve"] >= REPEAT_BELOW:
                    break
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    def cell(row, key):
        return timing_cell(row, key, 2, DID_NOT_FINISH)

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
            f"{cell(row, 'gambit_float')} | {ratio_cell(row, 'gambit_exact', CAP)} | "
            f"{ratio_cell(row, 'gambit_float', CAP)} | {agree} |"
        )
    print()
    for row in rows:
        if "bluff_value" in row:
            print(f"{row['game']}: bluff's exact value {row['bluff_value']}")


if __name__ == "__main__":
    main()
