#!/usr/bin/env python3
"""Every .efg and .nfg file of a Gambit snapshot through bluff, each answer confirmed by pygambit.

Usage: gambit_sweep.py BLUFF_BIN SNAPSHOT OUT_DIR
       gambit_sweep.py --table OUT_DIR/gambit_sweep.json     (the table again, from the rows)

SNAPSHOT is a checkout of gambitproject/gambit or its git directory (as the `fetch` tool gives
it; its HEAD is extracted to a temporary directory, never into bluff). The files swept are those
under catalog/, contrib/games/ and tests/test_games/. Each file goes through
`scripts/gambit_confirm.py file` in its own process (stopped after FILE_CAP_SECONDS, 300): bluff
reads it (`bluff solve FILE --algo lcp`); a two-player game with perfect recall is solved (each
bluff run stopped at BLUFF_CAP_SECONDS, 60) and the equilibrium checked by pygambit (regrets
exactly 0, payoffs equal to bluff's values); a two-player .nfg also through `bluff normal-form
--all --max-vertices MAX_VERTICES` (10 000), whose set of extreme equilibria must equal
`enummixed_solve(rational=True)`'s; other games must be refused with their reason.

Writes OUT_DIR/gambit_sweep.json (one row per file) and prints the table of counts in Markdown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIRM = os.path.join(HERE, "..", "scripts", "gambit_confirm.py")
FOLDERS = ("catalog", "contrib/games", "tests/test_games")
BLUFF_CAP = float(os.environ.get("BLUFF_CAP_SECONDS", "60"))
FILE_CAP = float(os.environ.get("FILE_CAP_SECONDS", "300"))
MAX_VERTICES = int(os.environ.get("MAX_VERTICES", "10000"))


def snapshot_files(snapshot: str, tmp: str) -> tuple[str, str, list[str]]:
    """(root, commit, relative paths of the .efg/.nfg files) of a checkout or a git directory."""
    if os.path.isdir(os.path.join(snapshot, "catalog")):
        root = snapshot
        commit = subprocess.run(
            ["git", "-C", snapshot, "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    else:
        root = os.path.join(tmp, "gambit")
        os.makedirs(root)
        git = ["git", f"--git-dir={snapshot}"]
        commit = subprocess.run(
            [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        archive = subprocess.run(
            [*git, "archive", "HEAD", *FOLDERS], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", root], input=archive, check=True)
    paths = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                if name.endswith((".efg", ".nfg")):
                    paths.append(os.path.relpath(os.path.join(dirpath, name), root))
    return root, commit or "unknown", sorted(paths)


def check(bluff: str, path: str, work: str) -> dict:
    """gambit_confirm.py's record for one file, or why there is none."""
    cmd = [sys.executable, CONFIRM, "file", bluff, path, work, str(BLUFF_CAP), str(MAX_VERTICES)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=FILE_CAP)
    except subprocess.TimeoutExpired:
        return {"check": "timeout", "seconds": round(time.perf_counter() - t0, 1)}
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["failed"])[-1]
        return {"check": "failed", "error": last}
    rec = json.loads(p.stdout)
    rec["check"] = "done"
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def category(rec: dict) -> str:
    """The row's outcome, as the table counts it."""
    if rec["check"] != "done":
        return f"check {rec['check']}"
    if "must_refuse" in rec:
        ok = "refused with the reason" if rec["refused_ok"] else "NOT refused as expected"
        why = {"players": "other than two players"}.get(rec["must_refuse"], rec["must_refuse"])
        return f"{ok}: {why}"
    if "gambit_error" in rec:
        return "pygambit cannot read it; bluff " + ("reads it" if rec["read"] else "refuses it")
    solve = rec.get("solve")
    if solve == "solved":
        return "solved, confirmed" if rec["confirmed"] else "solved, NOT confirmed"
    if solve == "timeout":
        return f"solve timed out ({BLUFF_CAP:.0f} s)"
    return "solve failed: " + rec.get("error", "")


def table(commit: str, rows: list[dict]) -> str:
    """The Markdown table of counts over the rows."""
    two = [r for r in rows if r.get("players") == 2]
    nfg = [r for r in rows if "all" in r]
    timed_out = sum(
        r["check"] == "timeout" or r.get("solve") == "timeout" or r.get("all") == "timeout"
        for r in rows
    )
    counts = [
        ("files (.efg, .nfg)", len(rows)),
        ("read by bluff", sum(bool(r.get("read")) for r in rows)),
        ("read by pygambit", sum(r["check"] == "done" and "gambit_error" not in r for r in rows)),
        ("... from a copy with plain labels", sum("gambit_read" in r for r in rows)),
        ("two-player", len(two)),
        ("two-player with perfect recall", sum("must_refuse" not in r for r in two)),
        ("solved by `--algo lcp`", sum(r.get("solve") == "solved" for r in rows)),
        ("confirmed by pygambit", sum(bool(r.get("confirmed")) for r in rows)),
        ("... of them by `max_regret`", sum(r.get("max_regret") == "0" for r in rows)),
        ("two-player .nfg through `normal-form --all`", len(nfg)),
        ("... same set as `enummixed_solve`", sum(bool(r.get("all_confirmed")) for r in nfg)),
        ("timed out (bluff 60 s, a file's checks 300 s)", timed_out),
    ]
    for outcome, n in sorted(Counter(category(r) for r in rows).items()):
        counts.append((outcome, n))
    for what, n in sorted(Counter(r["all"] for r in nfg if r["all"] != "done").items()):
        counts.append((f"`normal-form --all` {what}", n))
    slow = max(rows, key=lambda r: r.get("solve_seconds", 0))
    lines = [f"Gambit snapshot {commit[:12]}, {len(rows)} files", "", "| | files |", "|---|---:|"]
    lines += [f"| {what} | {n} |" for what, n in counts]
    lines += [
        "",
        f"Slowest `bluff solve --algo lcp` (wall, with startup): {slow.get('solve_seconds')} s "
        f"({slow['file']}).",
    ]
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        with open(sys.argv[2]) as f:
            doc = json.load(f)
        print(table(doc["commit"], doc["rows"]))
        return
    bluff, snapshot, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root, commit, paths = snapshot_files(snapshot, tmp)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        rows = []
        for rel in paths:
            rec = check(bluff, os.path.join(root, rel), work)
            rec["file"] = rel
            rec["outcome"] = category(rec)
            rows.append(rec)
            print(f"{rel}: {rec['outcome']}", file=sys.stderr, flush=True)
    with open(os.path.join(out_dir, "gambit_sweep.json"), "w") as f:
        json.dump({"commit": commit, "rows": rows}, f, indent=1)
    print(table(commit, rows))


if __name__ == "__main__":
    main()
