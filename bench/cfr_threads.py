"""bluff's CFR on 1 and 2 threads, side by side in one run: iterations per second and the
speed-up of the second thread on games of at least 1e5 nodes.

Run through bench/cfr_threads.sh, which builds bluff. Each case runs `bluff solve SPEC --algo
cfr --iterations N --threads T --json -o FILE` with T = 1 and 2 in turns, REPS times, and keeps
the best rate of each (the rate counts iterations only, not loading nor the exploitability
check). The average strategies written at 1 and 2 threads are compared byte for byte (the
solver's results do not depend on the thread count). The load average before and after each
case is printed: on a shared machine the second thread often has no free core, and the
speed-up is then noise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

BLUFF, GEN = sys.argv[1], sys.argv[2]
REPS = int(os.environ.get("REPS", "3"))
# spec (or "random:NODES" for bench/gen_random_efg.py), iterations timed
CASES = [
    ("goofspiel(cards=5)", 100),
    ("liars-dice(dice=1,sides=6)", 300),
    ("random:1000000", 100),
]


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def solve(spec: str, iterations: int, threads: int, out: str) -> float:
    text = subprocess.run(
        [
            BLUFF,
            "solve",
            spec,
            "--algo",
            "cfr",
            "--iterations",
            str(iterations),
            "--check-every",
            str(iterations),
            "--threads",
            str(threads),
            "--json",
            "-o",
            out,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(text)["iterations_per_second"])


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec, iterations in CASES:
            if spec.startswith("random:"):
                nodes = spec.split(":")[1]
                path = os.path.join(d, f"random{nodes}.efg")
                with open(path, "w") as f:
                    subprocess.run([sys.executable, GEN, nodes], check=True, stdout=f)
                spec, name = path, f"random .efg ({nodes} nodes)"
            else:
                name = spec
            before = load()
            best = {1: 0.0, 2: 0.0}
            outs = {t: os.path.join(d, f"avg{t}.json") for t in (1, 2)}
            for _ in range(REPS):
                for t in (1, 2):
                    best[t] = max(best[t], solve(spec, iterations, t, outs[t]))
            same = open(outs[1], "rb").read() == open(outs[2], "rb").read()
            rows.append(
                (
                    name,
                    iterations,
                    f"{best[1]:.1f}",
                    f"{best[2]:.1f}",
                    f"{best[2] / best[1]:.2f}x",
                    "yes" if same else "NO",
                    f"{before} / {load()}",
                )
            )
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    print(f"{os.cpu_count()} cores, best of {REPS} runs per thread count, in turns")
    header = (
        "game",
        "iterations",
        "1 thread it/s",
        "2 threads it/s",
        "speed-up",
        "same strategy",
        "load average before / after",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
