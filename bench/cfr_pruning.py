"""Pruning of zero-reach subtrees, side by side in one run: it/s with pruning off and on.

Run through bench/cfr_pruning.sh, which builds `examples/cfr_pruning.rs`. For each game and
algorithm the example runs the same iterations with pruning off and on (runs taken in turns,
best of 2, single thread) and reports the fraction of nodes the pruned passes visited (the last
pass of each iteration) and whether the two end states are bit-identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

EXAMPLE = sys.argv[1]
CASES = [("leduc", 1000), ("liars-dice", 100), ("goofspiel(cards=5,order=descending)", 300)]
ALGOS = ["cfr", "cfr+", "dcfr", "pcfr+"]


def main() -> None:
    print(
        "| game | algo | iterations | nodes visited | unpruned it/s | pruned it/s | speed-up "
        "| bit-identical |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for game, iterations in CASES:
        for algo in ALGOS:
            out = subprocess.run(
                [EXAMPLE, game, algo, "1", str(iterations), "2"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            d = json.loads(out)
            off, on = d["unpruned_it_per_s"], d["pruned_it_per_s"]
            print(
                f"| {game} | {algo} | {iterations} | {d['visited_fraction']:.0%} | {off:.1f} "
                f"| {on:.1f} | {on / off:.2f}x | {'yes' if d['identical'] else 'NO'} |",
                flush=True,
            )
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"\nload average: {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
