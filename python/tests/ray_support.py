"""Shared by the Ray tests: the cases, and a check that no Ray process of a test is left."""

from __future__ import annotations

import os
import pathlib
import time

import bluff

# The sharded cases of issue 32: games x algorithms, 100 iterations, 1 to 3 shards.
SHARDED_GAMES = ["kuhn", "leduc", "liars-dice(sides=4)"]
SHARDED_ALGOS = ["cfr+", "dcfr"]


def ray_processes(marker: str) -> list[str]:
    """Command lines of running processes that mention `marker` (a Ray temp directory)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(cmd)
    return found


def assert_no_ray_left(marker: str) -> None:
    """Waits up to 20 s for the processes of the Ray session under `marker` to exit."""
    deadline = time.monotonic() + 20
    while ray_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = ray_processes(marker)
    assert not left, f"Ray processes left behind: {left[:3]}"


def sweep_jobs() -> list[dict]:
    """Eight small solves: several games, algorithms, options, a built game and the LP."""
    b = bluff.GameBuilder("matching pennies")
    heads, tails = b.decision(0, 0, "x", ["H", "T"])
    for node, sign in [(heads, 1), (tails, -1)]:
        h, t = b.decision(node, 1, "y", ["H", "T"])
        b.terminal(h, sign)
        b.terminal(t, -sign)
    pennies = b.build()
    return [
        {"game": "kuhn", "algo": "cfr", "iterations": 300},
        {"game": "kuhn", "algo": "cfr+", "iterations": 200, "check_every": 50},
        {"game": "leduc", "algo": "dcfr", "iterations": 60, "gamma": 1.5},
        {"game": "leduc", "algo": "pcfr+", "iterations": 40},
        {"game": "liars-dice(sides=3)", "algo": "cfr", "iterations": 80, "updates": "alternating"},
        {"game": bluff.game("one-card-poker"), "algo": "dcfr+", "iterations": 100},
        {"game": pennies, "algo": "cfr+", "iterations": 50},
        {"game": "kuhn", "algo": "lp"},
    ]


def same_result(a: bluff.SolveResult, b: bluff.SolveResult) -> bool:
    """Equal as results go: policy bit for bit, exploitability, value, iterations, and the
    curve's iterations and exploitabilities (its seconds are wall time)."""
    return (
        a.policy == b.policy
        and a.exploitability == b.exploitability
        and a.value == b.value
        and a.iterations == b.iterations
        and [p[:2] for p in a.curve] == [p[:2] for p in b.curve]
    )


def assert_sharded_equals_one_process(spec: str, algo: str) -> None:
    """Sharded CFR on 1, 2 and 3 shards ends with the single process's bits (tree kernel)."""
    import bluff.ray as bray

    want = bluff.solve(bluff.game(spec), algo=algo, iterations=100, kernel="tree")
    for shards in (1, 2, 3):
        got = bray.solve_sharded(spec, shards=shards, algo=algo, iterations=100)
        assert got.policy == want.policy, (spec, algo, shards)
        assert got.current_policy == want.current_policy
        assert got.exploitability == want.exploitability
        assert got.iterations == 100


def one_by_one(jobs: list[dict]) -> list[bluff.SolveResult]:
    out = []
    for job in jobs:
        kwargs = {k: v for k, v in job.items() if k != "game"}
        game = bluff.game(job["game"]) if isinstance(job["game"], str) else job["game"]
        out.append(bluff.solve(game, **kwargs))
    return out
