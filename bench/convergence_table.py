"""Exploitability after 100 / 1000 / 10000 iterations for every CFR variant on every benchmark
game, as a Markdown table (the README's convergence table).

usage: python3 bench/convergence_table.py target/release/bluff [--max-iterations N] [--algos A,B]

Each cell is its own run of `bluff solve --iterations N` (the schedules of hs-* depend on N).
Runs whose game has more nodes than BIG_NODES stop at 1000 iterations to keep the table's
run time sane; those cells say "-".
"""

from __future__ import annotations

import json
import subprocess
import sys

BLUFF = sys.argv[1]
MAX_IT = int(sys.argv[sys.argv.index("--max-iterations") + 1]) if "--max-iterations" in sys.argv else 10000
GAMES = [
    "kuhn",
    "leduc",
    "liars-dice(sides=4)",
    "liars-dice(sides=6)",
    "goofspiel(cards=4,order=descending)",
    "goofspiel(cards=5,order=descending)",
]
ALGOS = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "dcfr+", "pdcfr+", "hs-dcfr", "hs-pcfr+"]
if "--algos" in sys.argv:
    ALGOS = sys.argv[sys.argv.index("--algos") + 1].split(",")
BIG_NODES = 100_000


def solve(game: str, algo: str, iterations: int) -> dict:
    out = subprocess.run([BLUFF, "solve", game, "--algo", algo, "--iterations", str(iterations),
                          "--json", "--check-every", str(iterations)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    print("| game | algo | 100 | 1000 | 10000 |")
    print("|---|---|---|---|---|")
    for game in GAMES:
        for algo in ALGOS:
            cells = []
            nodes = None
            for n in (100, 1000, 10000):
                if n > MAX_IT or (nodes is not None and nodes > BIG_NODES and n > 1000):
                    cells.append("-")
                    continue
                r = solve(game, algo, n)
                nodes = r["nodes"]
                cells.append(f"{r['exploitability']:.3e}")
            print(f"| {game} | {algo} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
