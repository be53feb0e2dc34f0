"""bluff's CFR on 1 and 2 threads, side by side in one run: iterations per second and the
speed-up of the second thread on games of at least 1e5 nodes.

Run through bench/cfr_threads.sh, which builds bluff. Each case runs `bluff solve SPEC --algo
cfr --iterations N --threads T --json -o FILE` with T = 1 and 2 in turns, REPS times, and keeps
the best rate of each (the rate counts iterations only, not loading nor the exploitability
check). The average strategies written at 1 and 2 threads are compared byte for byte (the
solver's results do not depend on the thread count). The machine is shared, so each run also
records the CPU the *other* processes used meanwhile (all CPU time in /proc/stat minus the
run's own, as a share of all cores over the run's wall time): a speed-up measured while others
held the cores is noise, and the table says how busy they were during the best runs.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

BLUFF, GEN = sys.argv[1], sys.argv[2]
REPS = int(os.environ.get("REPS", "3"))
# spec (or "random:NODES" for bench/gen_random_efg.py), iterations timed
CASES = [
    ("goofspiel(cards=5)", 100),
    ("liars-dice(dice=1,sides=6)", 300),
    ("random:1000000", 100),
]
TICK = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU time spent by every process on the machine so far (user, nice, system, irq)."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(fields[:3]) + sum(fields[5:8])) / TICK


def own_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def solve(spec: str, iterations: int, threads: int, out: str) -> tuple[float, float]:
    """The run's iterations per second and the other processes' share of the cores."""
    args = [BLUFF, "solve", spec, "--algo", "cfr", "--iterations", str(iterations)]
    args += ["--check-every", str(iterations), "--threads", str(threads), "--json", "-o", out]
    busy, own, start = busy_seconds(), own_seconds(), time.perf_counter()
    text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    others = (busy_seconds() - busy) - (own_seconds() - own)
    share = max(others, 0.0) / (wall * (os.cpu_count() or 1))
    return float(json.loads(text)["iterations_per_second"]), share


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
            best = {1: (0.0, 0.0), 2: (0.0, 0.0)}
            outs = {t: os.path.join(d, f"avg{t}.json") for t in (1, 2)}
            for _ in range(REPS):
                for t in (1, 2):
                    best[t] = max(best[t], solve(spec, iterations, t, outs[t]))
            same = open(outs[1], "rb").read() == open(outs[2], "rb").read()
            (r1, o1), (r2, o2) = best[1], best[2]
            rows.append(
                (
                    name,
                    iterations,
                    f"{r1:.1f}",
                    f"{r2:.1f}",
                    f"{r2 / r1:.2f}x",
                    "yes" if same else "NO",
                    f"{o1:.0%} / {o2:.0%}",
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
        "others' CPU share (1t / 2t runs)",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
