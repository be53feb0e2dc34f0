"""The CFR kernels side by side in one run (see bench/cfr_kernels.sh, which builds and calls this).

For each game: iterations per second of the tree and the sequence-form kernel on 1 and 2
threads (vanilla CFR, simultaneous updates, every iteration on the team; best of REPS runs of
each, the runs of one game interleaved so that the machine's load hits all alike), the `cfr`
crate 0.6.2 (`cfr -m full -d vanilla`, the same algorithm, on the game exported as .efg; its
rate (N - 1) / (time(N) - time(1)) so that loading cancels) where it plays the game, the bytes an
iteration moves as computed from each kernel's layout (`CfrSolver::bytes_per_iteration`) times
the rate against the stream triad bandwidth measured here, and callgrind instructions per
iteration inside `CfrSolver::iterate` (the difference of two runs). The machine may be shared:
the load average is printed, and the instruction counts are the figures that do not move.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from common import callgrind, markdown_table, run

KERNELS, STREAM, BLUFF, CFR = sys.argv[1:5]
REPS = 2
# callgrind counts only inside the solver's iterations
ITERATE = "*CfrSolver::iterate*"
# spec, iterations timed, the crate's iterations (its loading must cancel: goofspiel 5 loads for
# seconds), callgrind iterations (lo, hi)
CASES = [
    ("kuhn", 20000, 20000, (200, 1000)),
    ("leduc", 1000, 1000, (20, 60)),
    ("liars-dice", 200, 100, (2, 6)),
    ("goofspiel(cards=5,order=random)", 20, 41, (1, 2)),
]


def kernel_run(spec: str, kernel: str, threads: int, n: int) -> dict:
    return json.loads(run([KERNELS, spec, kernel, str(threads), "cfr", str(n), "noeval"]))


def crate_time(efg: str, n: int) -> float:
    start = time.perf_counter()
    run([CFR, "-i", efg, "-m", "full", "-d", "vanilla", "-p", "1", "-t", str(n)])
    return time.perf_counter() - start


def main() -> None:
    bw = {t: json.loads(run([STREAM, str(t)])) for t in (1, 2)}
    for t in (1, 2):
        print(
            f"stream, {t} thread(s): copy {bw[t]['copy_gbs']:.1f} GB/s, "
            f"triad {bw[t]['triad_gbs']:.1f} GB/s",
            file=sys.stderr,
            flush=True,
        )
    ratio_bw = bw[2]["triad_gbs"] / bw[1]["triad_gbs"]
    rows = []
    have_crate = os.access(CFR, os.X_OK)
    with tempfile.TemporaryDirectory() as d:
        for spec, n, n_crate, (lo, hi) in CASES:
            best: dict[tuple[str, int], dict] = {}
            for _ in range(REPS):
                for kernel in ("tree", "sequence"):
                    for threads in (1, 2):
                        r = kernel_run(spec, kernel, threads, n)
                        key = (kernel, threads)
                        if key not in best or r["per_second"] > best[key]["per_second"]:
                            best[key] = r
            crate = "-"
            crate_rate = None
            if have_crate:
                efg = os.path.join(d, "game.efg")
                run([BLUFF, "export", spec, "-o", efg])
                m = n_crate
                t1 = min(crate_time(efg, 1) for _ in range(2))
                tn = min(crate_time(efg, m) for _ in range(2))
                crate_rate = (m - 1) / max(tn - t1, 1e-9)
                crate = f"{crate_rate:.1f}"
            ir = {}
            for kernel in ("tree", "sequence"):
                a = [KERNELS, spec, kernel, "1", "cfr"]
                # The example runs max(1, n / 10) warm-up iterations, then n.
                count = lambda k: k + max(1, k // 10)  # noqa: E731
                ir[kernel] = (
                    callgrind(a + [str(hi), "noeval"], ITERATE)
                    - callgrind(a + [str(lo), "noeval"], ITERATE)
                ) / (count(hi) - count(lo))
            t1, s1 = best[("tree", 1)], best[("sequence", 1)]
            t2, s2 = best[("tree", 2)], best[("sequence", 2)]
            gbs = lambda r: r["bytes_per_iteration"] * r["per_second"] / 1e9  # noqa: E731
            row = (
                spec,
                t1["nodes"],
                t1["terminals"],
                s1["nonzeros"],
                f"{s1['matrix_bytes'] / t1['terminals']:.1f}",
                f"{t1['per_second']:.1f}",
                f"{s1['per_second']:.1f}",
                f"{s1['per_second'] / t1['per_second']:.2f}x",
                f"{t2['per_second'] / t1['per_second']:.2f}x",
                f"{s2['per_second'] / s1['per_second']:.2f}x",
                crate,
                f"{s1['per_second'] / crate_rate:.2f}x" if crate_rate else "-",
                f"{t1['bytes_per_iteration'] / 1e6:.2f} / {s1['bytes_per_iteration'] / 1e6:.2f}",
                f"{gbs(t1):.1f} / {gbs(s1):.1f}",
                f"{bw[1]['triad_gbs'] / gbs(s1):.2f}x",
                f"{ir['tree']:.3g} / {ir['sequence']:.3g}",
                f"{ir['tree'] / ir['sequence']:.2f}x",
            )
            rows.append(row)
            print(" | ".join(str(x) for x in row), file=sys.stderr, flush=True)
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"load average at the end: {' '.join(load)} on {os.cpu_count()} cores")
    print(
        f"stream triad: {bw[1]['triad_gbs']:.1f} GB/s on 1 thread, {bw[2]['triad_gbs']:.1f} on 2 "
        f"({ratio_bw:.2f}x); copy {bw[1]['copy_gbs']:.1f} / {bw[2]['copy_gbs']:.1f} GB/s"
    )
    header = (
        "game",
        "nodes",
        "terminals",
        "non-zeros of A",
        "matrix B/terminal",
        "tree 1t it/s",
        "sequence 1t it/s",
        "sequence/tree",
        "tree 2t/1t",
        "sequence 2t/1t",
        "cfr crate it/s",
        "sequence/crate",
        "MB moved/iter tree / seq",
        "GB/s tree / seq (1t)",
        "triad / seq GB/s",
        "Ir/iter tree / seq",
        "Ir tree/seq",
    )
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
