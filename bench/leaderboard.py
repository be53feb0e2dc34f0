"""The convergence leaderboard: exploitability of the average strategy after 100, 1000 and 10000
iterations for every CFR variant on every leaderboard game, beside DDCFR's published figures.

usage: python3 bench/leaderboard.py BLUFF [--csv docs/leaderboard.csv] [--md docs/benchmarks.md]
                                          [--games 'G;G'] [--algos A,A] [--counts 100,1000,10000]
                                          [--threads N] [--table-only]
(game specs hold commas, so --games separates them with semicolons; --help says the same)

Each cell is its own run of `bluff solve GAME --algo ALGO --iterations N --kernel tree` (the
tree kernel on every game, so the figures do not depend on the kernel's choice by shape; the
hs-* schedules plan over N, so each horizon is a run with T = N; the other variants would give
the same figure from one long run). Every finished cell is appended to the CSV at once, and
cells already there are skipped (the CSV is re-read before each cell), so a stopped run resumes
where it stopped. Cells run cheapest first (nodes x iterations). A cell a method does not define
stays blank: VAD-CFR averages from iteration 501, so it has no figure at 100. After every cell
the Markdown section `## Convergence leaderboard` of the --md file is rewritten from the CSV.
Exploitability does not depend on machine load: run it niced.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
from pathlib import Path

GAMES = [
    "kuhn",
    "leduc",
    "liars-dice(sides=4)",
    "goofspiel(cards=4,order=descending)",
    "battleship(height=2)",
    "goofspiel(cards=5,order=descending)",
    "liars-dice(sides=5)",
    "liars-dice(sides=6)",
    "battleship(height=3)",
    "big-leduc",
]
ALGOS = [
    "cfr",
    "cfr+",
    "lcfr",
    "dcfr",
    "pcfr+",
    "dcfr+",
    "pdcfr+",
    "sapcfr+",
    "hs-dcfr",
    "hs-pcfr+",
    "hs-dcfr-30",
    "hs-dcfr-15",
    "hs-pcfr+-30",
    "hs-pcfr+-15",
    "hs-pdcfr+-30",
    "hs-pdcfr+-15",
    "vad-cfr",
]
COUNTS = [100, 1000, 10000]
# Nodes of each game (bluff's `nodes`), to run the cheapest cells first.
NODES = {
    "kuhn": 58,
    "leduc": 9_457,
    "liars-dice(sides=4)": 8_181,
    "goofspiel(cards=4,order=descending)": 1_077,
    "battleship(height=2)": 10_069,
    "goofspiel(cards=5,order=descending)": 26_931,
    "liars-dice(sides=5)": 51_181,
    "liars-dice(sides=6)": 294_883,
    "battleship(height=3)": 732_607,
    "big-leduc": 6_178_561,
}
# Iterations before a method's average exists (VAD-CFR: iterations 1..500 are not averaged).
FIRST_AVERAGED = {"vad-cfr": 501}
DDCFR = "ddcfr (published)"
# DDCFR's learned schedule (Xu et al., ICLR 2024) as its authors ran it: the `<Game>/conv`
# column at steps 100 and 1000 of results/DDCFR_es_model/<Game>/data.csv in
# github.com/rpSebastian/DDCFR (exploitability = NashConv / 2, as bluff's).
DDCFR_PUBLISHED = {
    "kuhn": (0.0017666200816003896, 4.020942806842731e-05),
    "leduc": (0.01785523629476106, 0.00011984923240800083),
    "big-leduc": (0.016365010756999254, 7.907883264124393e-05),
    "liars-dice(sides=4)": (0.0008347855193853726, 1.7344230800450666e-05),
    "goofspiel(cards=4,order=descending)": (0.009153291382666955, 3.782546063223518e-05),
    "battleship(height=2)": (0.02897082804816048, 0.0014017252571681404),
    "battleship(height=3)": (0.021899676396312948, 0.0007579425884993302),
}
SHORT = {
    "kuhn": "Kuhn",
    "leduc": "Leduc",
    "big-leduc": "Big Leduc",
    "liars-dice(sides=4)": "LD 1x4",
    "liars-dice(sides=5)": "LD 1x5",
    "liars-dice(sides=6)": "LD 1x6",
    "goofspiel(cards=4,order=descending)": "GS 4",
    "goofspiel(cards=5,order=descending)": "GS 5",
    "battleship(height=2)": "BS 2x2",
    "battleship(height=3)": "BS 2x3",
}
FIELDS = ["game", "algo", "iterations", "exploitability", "seconds"]
HEADING = "## Convergence leaderboard"


def load(path: Path) -> dict[tuple[str, str, int], dict]:
    """The cells already in the CSV."""
    if not path.exists():
        return {}
    with path.open() as f:
        return {(r["game"], r["algo"], int(r["iterations"])): r for r in csv.DictReader(f)}


def append(path: Path, row: dict) -> None:
    """Appends one cell (with the header if the file is new)."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        if new:
            w.writeheader()
        w.writerow(row)


def solve(binary: str, game: str, algo: str, n: int, threads: str) -> dict:
    """One run of `bluff solve`."""
    out = subprocess.run(
        [binary, "solve", game, "--algo", algo, "--iterations", str(n), "--json"]
        + ["--check-every", str(n), "--threads", threads, "--kernel", "tree"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def fmt(x: str | float | None) -> str:
    """A figure as the tables print it."""
    return "" if x in (None, "") else f"{float(x):.2e}"


def markdown(cells: dict, games: list[str], algos: list[str], counts: list[int]) -> str:
    """The leaderboard section: the 1000-iteration table (best per game in bold), then every
    figure."""
    get = {k: v["exploitability"] for k, v in cells.items()}
    lines = [
        HEADING,
        "",
        "Exploitability of the average strategy (NashConv / 2) after 1000 iterations;",
        "`python3 bench/leaderboard.py target/release/bluff` (one run per cell, resumable;",
        "`docs/leaderboard.csv` holds every figure). The last row is DDCFR's learned schedule",
        "as its authors ran it (`results/DDCFR_es_model/<Game>/data.csv` of",
        "github.com/rpSebastian/DDCFR);",
        "blank: not run yet, or not published. Bold: lowest on the game.",
        "",
        "| algo | " + " | ".join(SHORT.get(g, g) for g in games) + " |",
        "|---|" + "---|" * len(games),
    ]
    best = {}
    for g in games:
        values = [float(get[(g, a, 1000)]) for a in algos + [DDCFR] if get.get((g, a, 1000))]
        best[g] = min(values) if values else None
    for a in algos + [DDCFR]:
        row = []
        for g in games:
            v = get.get((g, a, 1000))
            text = fmt(v)
            if v and best[g] is not None and float(v) == best[g]:
                text = f"**{text}**"
            row.append(text)
        lines.append(f"| {a} | " + " | ".join(row) + " |")
    lines += [
        "",
        "Every figure (100 / 1000 / 10000 iterations; VAD-CFR has none at 100, its average starts",
        "at iteration 501; DDCFR published 1000 iterations, and 100 on the way):",
        "",
        "| game | algo | " + " | ".join(str(n) for n in counts) + " |",
        "|---|---|" + "---|" * len(counts),
    ]
    for g in games:
        for a in algos + ([DDCFR] if g in DDCFR_PUBLISHED else []):
            lines.append(
                f"| {SHORT.get(g, g)} | {a} | "
                + " | ".join(fmt(get.get((g, a, n))) for n in counts)
                + " |"
            )
    return "\n".join(lines) + "\n"


def write_section(path: Path, section: str) -> None:
    """Replaces (or appends) the leaderboard section of the Markdown file."""
    text = path.read_text() if path.exists() else ""
    if HEADING in text:
        head, rest = text.split(HEADING, 1)
        nxt = rest.find("\n## ")
        tail = rest[nxt + 1 :] if nxt >= 0 else ""
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + section
    path.write_text(text)


def parse_args() -> argparse.Namespace:
    """The command line (see the module docs)."""
    ap = argparse.ArgumentParser(
        description="Exploitability after 100, 1000 and 10000 iterations for every CFR "
        "variant on every leaderboard game (resumable; one run per cell)."
    )
    ap.add_argument("binary", help="the bluff binary (target/release/bluff)")
    ap.add_argument("--csv", type=Path, default=Path("docs/leaderboard.csv"))
    ap.add_argument("--md", type=Path, default=Path("docs/benchmarks.md"))
    ap.add_argument("--games", default=";".join(GAMES), help="game specs, separated by ';'")
    ap.add_argument("--algos", default=",".join(ALGOS), help="algorithms, separated by ','")
    ap.add_argument("--counts", default="100,1000,10000", help="iteration counts")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--table-only", action="store_true", help="redraw the table, run nothing")
    return ap.parse_args()


def main() -> None:
    args = parse_args()
    binary = args.binary
    csv_path, md_path = args.csv, args.md
    games = args.games.split(";")
    algos = args.algos.split(",")
    counts = [int(x) for x in args.counts.split(",")]
    threads = args.threads
    cells = load(csv_path)
    for g, (e100, e1000) in DDCFR_PUBLISHED.items():
        for n, e in ((100, e100), (1000, e1000)):
            if (g, DDCFR, n) not in cells:
                row = {"game": g, "algo": DDCFR, "iterations": n, "exploitability": repr(e)}
                row["seconds"] = ""
                append(csv_path, row)
                cells[(g, DDCFR, n)] = row
    # Cheapest cells first (nodes x iterations): a stopped run has every cheap figure.
    todo = [(g, a, n) for g in games for n in counts for a in algos]
    todo.sort(key=lambda c: (NODES.get(c[0], 0) * c[2], games.index(c[0]), c[2]))
    for g, a, n in todo if not args.table_only else []:
        # Re-read: another run may have written cells meanwhile.
        cells = load(csv_path)
        if (g, a, n) in cells or n < FIRST_AVERAGED.get(a, 0):
            continue
        r = solve(binary, g, a, n, threads)
        row = {
            "game": g,
            "algo": a,
            "iterations": n,
            "exploitability": repr(r["exploitability"]),
            "seconds": f"{r['seconds']:.3f}",
        }
        append(csv_path, row)
        cells[(g, a, n)] = row
        print(f"{g} {a} {n}: {r['exploitability']:.3e}", flush=True)
        write_section(md_path, markdown(cells, games, algos, counts))
    write_section(md_path, markdown(load(csv_path), games, algos, counts))


if __name__ == "__main__":
    main()
