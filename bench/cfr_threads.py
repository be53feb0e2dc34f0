"""bluff's CFR on 1 and 2 threads, side by side in one run: iterations per second and the
speed-up of the second thread on games of at least 1e5 nodes.

Run through bench/cfr_threads.sh, which builds bluff. Each case runs `bluff solve SPEC --algo
cfr --iterations N --threads T --json -o FILE` with T = 1, T = 2 `--always-threads` (the team
runs every iteration) and T = 2 as a user runs it (the solver times the team against one
thread every 2 s and runs the faster) in turns, REPS times, and keeps the best rate of each (the
rate counts iterations only, not loading nor the exploitability check; the default's column
also gives the share of its iterations the team ran). The average strategies written by the
three are compared byte for byte (the solver's results do not depend on the thread count).
The machine is shared, so each run also records the CPU the *other* processes used meanwhile
(all CPU time in /proc/stat minus the run's own, as a share of all cores over the run's wall
time): a speed-up measured while others held the cores is noise, and the table says how busy
they were during the best runs.

Because of that, the table also gives a CPU-time estimate that other processes disturb much
less: each thread's own CPU time (from /proc/PID/task/TID/schedstat, sampled until the process
exits). At 2 threads the main thread loads, runs its share of the iterations, checks
exploitability and writes, and the one helper thread runs only its share of the iterations;
both are on a core for the whole of the iterations (each spins while it waits for the other),
so the main thread's CPU minus the helper's is the CPU outside the iterations, the 1-thread
run's CPU minus that is the CPU of the iterations on one thread, and dividing it by the
helper's CPU estimates the speed-up on an idle machine (cache and memory contention from other
processes still count). Every repetition's estimate is printed, lowest first: their spread
shows how far to trust them.

Where the two vCPUs sit matters more than load: before and after every 2-thread run, the
core-to-core round trip of a cache line is measured (bench/core_roundtrip.rs), and the table
gives the range over the runs. About 65 ns = one shared last-level cache; 300 ns or more =
separate caches, where the threads pay for every line one writes and the other reads (see the
README, "### Threads").
"""

from __future__ import annotations

import glob
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from common import markdown_table

BLUFF, GEN, ROUNDTRIP = sys.argv[1], sys.argv[2], sys.argv[3]
# FIFO=1: run the timed processes under `chrt -f 1` (see cfr_threads.sh).
PREFIX = ["chrt", "-f", "1"] if os.environ.get("FIFO") == "1" else []
REPS = int(os.environ.get("REPS", "3"))
# spec (or "random:NODES" for bench/gen_random_efg.py), iterations timed
CASES = [
    ("goofspiel(cards=5)", 100),
    ("liars-dice(dice=1,sides=6)", 300),
    # Long enough (1.5-3 s) for the default's timing of its team against one thread.
    ("liars-dice(dice=1,sides=6)", 3000),
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


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each live thread of `pid` (none once it has exited)."""
    out = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/schedstat") as f:
                out[int(os.path.basename(task))] = int(f.read().split()[0]) / 1e9
        except (OSError, ValueError):
            pass
    return out


def roundtrip() -> int:
    """Core-to-core round trip of a cache line now, in nanoseconds."""
    out = subprocess.run(PREFIX + [ROUNDTRIP], check=True, capture_output=True, text=True)
    return round(float(out.stdout))


def solve(
    spec: str, iterations: int, threads: int, out: str, always: bool = True
) -> tuple[float, float, list[float], float]:
    """The run's iterations per second, the other processes' share of the cores, the CPU
    seconds of each of its threads (the main thread first) and the share of its iterations
    the team ran."""
    args = [BLUFF, "solve", spec, "--algo", "cfr", "--iterations", str(iterations)]
    args += ["--check-every", str(iterations), "--threads", str(threads), "--json", "-o", out]
    if always and threads > 1:
        args.append("--always-threads")
    busy, own, start = busy_seconds(), own_seconds(), time.perf_counter()
    proc = subprocess.Popen(
        PREFIX + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    cpu: dict[int, float] = {}
    while proc.poll() is None:
        cpu.update(thread_cpu(proc.pid))
        time.sleep(0.02)
    text = proc.stdout.read() if proc.stdout else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode})")
    wall = time.perf_counter() - start
    others = (busy_seconds() - busy) - (own_seconds() - own)
    share = max(others, 0.0) / (wall * (os.cpu_count() or 1))
    threads_cpu = [cpu[t] for t in sorted(cpu)]
    summary = json.loads(text)
    team_share = summary["team_iterations"] / summary["iterations"]
    return float(summary["iterations_per_second"]), share, threads_cpu, team_share


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
            # 1: one thread; 2: two threads, --always-threads; 3: two threads, the default.
            best: dict[int, tuple[float, float, list[float], float]] = {}
            outs = {t: os.path.join(d, f"avg{t}.json") for t in (1, 2, 3)}
            estimates = []
            trips = []
            for _ in range(REPS):
                runs = {1: solve(spec, iterations, 1, outs[1])}
                trips.append(roundtrip())
                runs[2] = solve(spec, iterations, 2, outs[2])
                trips.append(roundtrip())
                runs[3] = solve(spec, iterations, 2, outs[3], always=False)
                trips.append(roundtrip())
                for t, run in runs.items():
                    best[t] = max(best.get(t, run), run)
                one, two = runs[1][2], runs[2][2]
                if len(one) == 1 and len(two) == 2:
                    estimates.append((one[0] - (two[0] - two[1])) / two[1])
            texts = [open(outs[t], "rb").read() for t in (1, 2, 3)]
            same = texts[0] == texts[1] == texts[2]
            (r1, o1, _, _), (r2, o2, cpu2, _), (r3, _, _, team3) = best[1], best[2], best[3]
            rows.append(
                (
                    name,
                    iterations,
                    f"{r1:.1f}",
                    f"{r2:.1f}",
                    f"{r2 / r1:.2f}x",
                    f"{r3:.1f}",
                    f"{r3 / r1:.2f}x",
                    f"{team3:.0%}",
                    " / ".join(f"{e:.2f}x" for e in sorted(estimates)),
                    " / ".join(f"{c:.2f}" for c in cpu2),
                    "yes" if same else "NO",
                    f"{o1:.0%} / {o2:.0%}",
                    f"{min(trips)}-{max(trips)}",
                )
            )
            print(" | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    print(f"{os.cpu_count()} cores, best of {REPS} runs per setting, in turns")
    header = (
        "game",
        "iterations",
        "1 thread it/s",
        "2 threads (always) it/s",
        "speed-up (always)",
        "2 threads (default) it/s",
        "speed-up (default)",
        "team's share (default)",
        "CPU-time estimate",
        "threads' CPU s (2t: main / helper)",
        "same strategy",
        "others' CPU share (1t / 2t runs)",
        "core round trip ns",
    )
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
