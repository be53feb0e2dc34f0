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
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    export_efg,
    gambit_solve,
    ratio_cell,
    run_capped,
    timing_cell,
)

CAP = float(os.environ.get("GAMBIT_CAP_SECONDS", "600"))


def main():
    bluff, out_dir = sys.argv[1], sys.argv[2]
    rows = []
    for spec in sys.argv[3:]:
        row = {"game": spec}
        efg, err = export_efg(bluff, spec, out_dir)
        if err:
            row["bluff"] = f"no .efg: {err}"
            rows.append(row)
            continue
        out, _, err = run_capped([bluff, "solve", efg, "--algo", "lcp", "--json"])
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
        for key, rational in (("gambit_rational", True), ("gambit_float", False)):
            r, err = gambit_solve(efg, "lcp_solve", rational, CAP)
            if err:
                row[key] = err
                continue
            row[key + "_s"] = r["solve"]
            row[key + "_values"] = r["values"]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    def cell(row, key):
        return timing_cell(row, key, 1, f"> {CAP:.0f} s")

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
            f"{ratio_cell(row, 'gambit_rational', CAP)} | {ratio_cell(row, 'gambit_float', CAP)} |"
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
