"""Sharded CFR on a local Ray instance (issue 32): iteration time, bytes exchanged per iteration
and time spent exchanging with 1, 2 and 4 shards, against the single-process solver on the same
game, measured side by side in one run; then the scaling model of docs/ray.md fitted to these
runs (its error printed) and its predictions for the largest built-in games on N machines.

    python/.venv/bin/python bench/ray_shards.py [--quick] [--json out.json]

Loopback only: a local `ray.init(num_cpus=2)` on 127.0.0.1. Every sharded run is checked bit for
bit against the single process. Timings are wall clock on a shared 2-core machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time

import ray

import bluff
import bluff.ray as bray

GAMES = [("leduc", 200), ("liars-dice", 50), ("goofspiel(cards=5)", 10)]
SHARDS = [1, 2, 4]
ALGO = "cfr+"
CORES = 2  # of this machine


def start_local_ray() -> None:
    """A local Ray of 2 CPUs on loopback only, in a temporary directory of its own."""
    ray.init(
        num_cpus=CORES,
        include_dashboard=False,
        _temp_dir=tempfile.mkdtemp(prefix="bfb", dir="/tmp"),
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )


def liars_dice_sizes(dice: int, sides: int) -> tuple[float, float, int]:
    """Histories, actions summed over one player's information sets, and bids, of OpenSpiel's
    liars_dice with `dice` dice per player (counted, not built: 2x5 does not fit one machine).
    Each die is rolled in turn (sides^dice ordered rolls per player; a player's information
    sets see its dice sorted); a bid history is an increasing sequence of the 2*dice*sides bids,
    and every non-empty one may be closed by `liar`. Checked against the built 1x6, 1x4, 2x3."""
    bids = 2 * dice * sides
    rolls = sides ** (2 * dice)
    # Bid sequences: subsets of the bids in increasing order; each non-empty one can be closed
    # by "liar" (a terminal) or not, unless it holds the highest bid.
    sequences = 2**bids
    chance = sum(sides**k for k in range(1, 2 * dice))  # the last roll's nodes are bid roots
    histories = 1 + chance + rolls * (sequences + (sequences - 1))
    # Actions at a bid history whose highest bid is m (1-based): bids above m, plus liar.
    per_roll = bids + sum(2 ** (m - 1) * ((bids - m) + 1) for m in range(1, bids + 1))
    # A player's information set sees its own dice sorted: multisets of `dice` of `sides`.
    own_rolls = math.comb(sides + dice - 1, dice)
    return histories, own_rolls * per_roll / 2, bids


def single(spec: str, iterations: int) -> tuple[float, bluff.SolveResult]:
    game = bluff.game(spec)
    r = bluff.solve(game, algo=ALGO, iterations=iterations, threads=1, kernel="tree")
    return r.seconds / iterations, r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer iterations, Leduc only")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--fit", help="only fit the model to measurements written by --json")
    ap.add_argument(
        "--memory",
        action="store_true",
        help="only the memory of one shard built alone, whole game against its part (no Ray)",
    )
    ap.add_argument(
        "--beyond",
        metavar="SPEC",
        help="only one sharded run of SPEC, a built-in game stated by rules that may be beyond "
        "the builder's limit: the driver builds no game (result='rules'); prints times, the "
        "exploitability by the streaming best response and every process's peak memory",
    )
    ap.add_argument("--shards", type=int, default=2, help="with --beyond (default 2)")
    ap.add_argument("--iterations", type=int, default=5, help="with --beyond (default 5)")
    args = ap.parse_args()
    if args.beyond:
        beyond(args.beyond, args.shards, args.iterations)
        return
    if args.memory:
        shard_memory()
        return
    if args.fit:
        with open(args.fit) as f:
            fit(json.load(f))
        return
    games = GAMES[:1] if args.quick else GAMES
    start_local_ray()
    rows = []
    try:
        for spec, iterations in games:
            if args.quick:
                iterations = max(2, iterations // 4)
            game = bluff.game(spec)
            t1, want = single(spec, iterations)
            for shards in SHARDS:
                stats: dict = {}
                start = time.perf_counter()
                got = bray.solve_sharded(
                    spec, shards=shards, algo=ALGO, iterations=iterations, stats=stats
                )
                total = time.perf_counter() - start
                assert got.policy == want.policy, (spec, shards)
                per = stats["shard_seconds"]
                # The critical path of the shards' compute: evaluate and apply run at once on
                # every shard, the folds one after the other.
                busy = (
                    max(s["evaluate"] for s in per)
                    + sum(s["fold"] for s in per)
                    + max(s["apply"] for s in per)
                ) / iterations
                it = stats["wall_seconds"] / iterations
                rows.append(
                    {
                        "game": spec,
                        "nodes": game.num_nodes,
                        "actions": list(game.num_actions),
                        "iterations": iterations,
                        "shards": shards,
                        "single_s": t1,
                        "iteration_s": it,
                        "compute_s": busy,
                        "exchange_s": max(0.0, it - busy),
                        "bytes": stats["bytes_per_iteration"],
                        "work": stats["work"],
                        "held": stats["held_nodes"],
                        "partial": stats["partial"],
                        "rss_mb": [round(x / 2**20) for x in stats["rss_bytes"]],
                        "anon_mb": [round(x / 2**20) for x in stats["anon_bytes"]],
                        "before_mb": [round(x / 2**20) for x in stats["anon_before_bytes"]],
                        "with_setup_s": total,
                    }
                )
                r = rows[-1]
                print(
                    f"{spec:20} N={shards} iteration {it * 1e3:8.2f} ms (single {t1 * 1e3:7.2f}"
                    f" ms, x{it / t1:6.2f}), shards busy {busy * 1e3:8.2f} ms, exchanging"
                    f" {r['exchange_s'] * 1e3:8.2f} ms, {r['bytes']:>10} B/iteration,"
                    f" nodes held {max(r['held'])} of {r['nodes']}, actor RSS {max(r['rss_mb'])} MB"
                    f" (anonymous {max(r['anon_mb'])} MB, {max(r['before_mb'])} MB before the"
                    " shard), bit-identical",
                    flush=True,
                )
    finally:
        ray.shutdown()
    fit(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


# Builds one shard in a fresh process and prints its peak resident memory above the process's
# memory before the shard (bluff imported), and the nodes it holds.
_ONE_SHARD = """
import sys
import time
import bluff
from bluff import _bluff

def peak():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmHWM:"))

spec, shards, index, whole = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
before = peak()
t = time.process_time()
game = bluff.game(spec) if whole else spec
s = _bluff._Shard(game, "cfr+", shards, index)
t = time.process_time() - t
for phase in range(s.phases()):
    s.evaluate(phase)
print(peak() - before, s.work()[2], t)
"""


def beyond(spec: str, shards: int, iterations: int) -> None:
    """One sharded CFR+ run of `spec` with `result="rules"` on a local Ray instance: no process
    holds the whole game. Peak memory from each process's VmHWM (the actors report theirs
    before they are killed, through `stats`)."""
    import resource

    start_local_ray()
    try:
        stats: dict = {}
        start = time.perf_counter()
        got = bray.solve_sharded(
            spec, shards=shards, algo=ALGO, iterations=iterations, result="rules", stats=stats
        )
        total = time.perf_counter() - start
    finally:
        ray.shutdown()
    assert isinstance(got, bluff.RulesSolveResult)
    gb = 1e9
    driver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / gb
    print(f"{spec}: {stats['game_nodes']:,} nodes, {shards} shards, {iterations} iterations")
    wall = stats["wall_seconds"]
    print(f"  iterations: {wall:.1f} s ({wall / iterations:.2f} s each)")
    print(f"  exchanged per iteration: {stats['bytes_per_iteration'] / 1e6:.1f} MB")
    print(f"  nodes held per shard: {', '.join(f'{h:,}' for h in stats['held_nodes'])}")
    rss = ", ".join(f"{r / gb:.2f}" for r in stats["rss_bytes"])
    print(f"  shard resident memory at the end: {rss} GB")
    print(
        f"  exploitability {got.exploitability:.6g} (streaming best response "
        f"{got.stats['best_response_seconds']:.1f} s); sets {got.stats['infosets']}"
    )
    print(f"  driver peak memory {driver:.2f} GB; whole run {total:.1f} s")


def shard_memory() -> None:
    """Peak memory of one shard built alone (a fresh process each, no Ray): from the whole game
    (a game with no rules, or bluff before partial shards) and from the rules (its part only),
    for 1, 2 and 4 shards; the largest shard of each split."""
    import subprocess
    import sys

    print(
        "game | shards | whole game: MB | part: MB (largest shard) | nodes held (largest) |"
        " build CPU s: whole | part (slowest)"
    )
    pts = []
    for spec, _ in GAMES:
        game = bluff.game(spec)
        acts = float(sum(game.num_actions))
        for shards in SHARDS:
            out = {}
            for whole in (True, False):
                worst = (0, 0, 0.0)
                for k in range(1 if whole else shards):
                    argv = [sys.executable, "-c", _ONE_SHARD, spec, str(shards), str(k)]
                    argv += ["1" if whole else "0"]
                    got = subprocess.run(argv, capture_output=True, text=True, check=True)
                    mem, held, secs = got.stdout.split()
                    mem, held = int(mem), int(held)
                    worst = (max(worst[0], mem), max(worst[1], held), max(worst[2], float(secs)))
                    if not whole:
                        pts.append((float(held), acts, float(mem)))
                out[whole] = worst
            print(
                f"{spec} | {shards} | {out[True][0] / 2**20:.1f} | {out[False][0] / 2**20:.1f} |"
                f" {out[False][1]} of {game.num_nodes} | {out[True][2]:.2f} | {out[False][2]:.2f}",
                flush=True,
            )
    # Peak bytes of a part = b_node * nodes held + b_action * actions of both players (least
    # squares on the relative error), then a liars dice 2x5 shard's.
    s11 = s12 = s22 = b1 = b2 = 0.0
    for x1, x2, y in pts:
        x1, x2 = x1 / y, x2 / y
        s11, s12, s22 = s11 + x1 * x1, s12 + x1 * x2, s22 + x2 * x2
        b1, b2 = b1 + x1, b2 + x2
    det = s11 * s22 - s12 * s12
    bn, ba = (b1 * s22 - b2 * s12) / det, (s11 * b2 - s12 * b1) / det
    errs = [abs(bn * x1 + ba * x2 - y) / y for x1, x2, y in pts]
    print(
        f"\nfit: {bn:.1f} B per node held + {ba:.1f} B per action (both players); error median"
        f" {statistics.median(errs):.0%}, max {max(errs):.0%} over {len(pts)} shards"
    )
    hist, actions, _ = liars_dice_sizes(2, 5)
    for machines in [1, 2, 4, 8, 16, 64]:
        gb = (bn * hist / machines + ba * 2 * actions) / 1e9
        print(f"  liars-dice(dice=2,sides=5), {machines:2} shards: {gb:.3g} GB per shard")


def fit(rows: list[dict]) -> None:
    """Fits T(N) = a_g n / N + h s(N) + B(N) / bw (docs/ray.md) to the sharded runs, least
    squares on the relative error; prints the error and the predictions."""
    # a: seconds per node and iteration of the single process, per game (a_g) and over all.
    singles = {r["game"]: (r["nodes"], r["single_s"]) for r in rows}
    a = sum(n * t for n, t in singles.values()) / sum(n * n for n, _ in singles.values())

    def steps(r: dict) -> int:
        return 2 * (r["shards"] + 2)  # CFR+: 2 phases of evaluate, N folds, apply

    def compute(r: dict) -> float:
        # The shards share this machine's 2 cores: at most 2 traverse at once.
        return r["single_s"] / min(r["shards"], CORES)

    # Weighted least squares for (h, 1 / bw) on y = T - compute, each equation divided by T.
    s11 = s12 = s22 = b1 = b2 = 0.0
    for r in rows:
        t = r["iteration_s"]
        x1, x2, y = steps(r) / t, r["bytes"] / t, (t - compute(r)) / t
        s11, s12, s22 = s11 + x1 * x1, s12 + x1 * x2, s22 + x2 * x2
        b1, b2 = b1 + x1 * y, b2 + x2 * y
    det = s11 * s22 - s12 * s12
    h = (b1 * s22 - b2 * s12) / det
    inv_bw = (s11 * b2 - s12 * b1) / det
    print(
        f"\nfit: a = {a * 1e9:.2f} ns per node and iteration (single process, over the games),"
        f" h = {h * 1e3:.3f} ms per step, bw = {1 / inv_bw / 1e6:.0f} MB/s through Ray"
    )
    errs = []
    for r in rows:
        pred = compute(r) + h * steps(r) + r["bytes"] * inv_bw
        e = (pred - r["iteration_s"]) / r["iteration_s"]
        errs.append(abs(e))
        print(
            f"  {r['game']:20} N={r['shards']}: measured {r['iteration_s'] * 1e3:8.2f} ms,"
            f" model {pred * 1e3:8.2f} ms ({e:+.0%})"
        )
    print(f"  error: median {statistics.median(errs):.0%}, max {max(errs):.0%}")
    # The measured games (sizes as built), then liars dice 2x5 (counted).
    big = []
    for r in rows:
        if r["shards"] == 1:
            big.append((r["game"], r["nodes"], float(sum(r["actions"]))))
    hist, actions, _ = liars_dice_sizes(2, 5)
    big.append(("liars-dice(dice=2,sides=5)", hist, 2 * actions))
    for bw_name, bw, hop in [
        ("10 Gbit/s", 1.25e9, h),
        ("1 Gbit/s", 1.25e8, h),
        ("Ray here", 1 / inv_bw, h),
    ]:
        print(f"\nprediction, {bw_name}, {hop * 1e3:.2f} ms per step (seconds per iteration):")
        for name, n, acts in big:
            cells = []
            for machines in [1, 4, 16, 64, 256]:
                moved = 8 * acts * (2 * machines - 1)  # sums of both phases along the chain
                t = a * n / machines + hop * 2 * (machines + 2) + moved / bw
                cells.append(f"N={machines}: {t:.3g}")
            print(f"  {name:28} ({n:.3g} histories): " + ", ".join(cells))
    print(f"\nliars-dice(dice=2,sides=5): {hist:.4g} histories, {actions:.4g} actions per player")
    assert math.isfinite(a)


if __name__ == "__main__":
    main()
