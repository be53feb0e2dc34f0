"""bluff on Ray: many solves at once, and one game's CFR sharded across actors.

Install with the optional extra (``pip install "./python[ray]"``, Ray 2.60). Both entry points
use the Ray instance the caller started (``ray.init(...)``, locally or with a cluster address)
or start a local one when none is running.

- :func:`sweep` runs a list of solves as Ray tasks and returns their results in order, the same
  as :func:`bluff.solve` one by one. CFR-family tasks with an iteration count checkpoint to a
  shared directory (bluff's checkpoints); a task whose worker dies is retried by Ray and resumes
  from its checkpoint, ending with the bits of an unbroken run. :func:`records` turns results
  into plain JSON-lines records with convergence curves.
- :func:`solve_sharded` runs full-traversal CFR (every algorithm of the CFR family) on a game
  split across Ray actors, one per shard: each traverses (and, for a built-in game stated by
  rules, holds only) the top of the tree and its own subtrees, the shards continue
  each information set's regret sum in a chain in the single process's order, and every shard
  applies the same update, so ``.policy`` equals ``bluff.solve(game, algo, iterations=K).policy``
  bit for bit for any number of shards (see ``docs/ray.md``). Shards checkpoint into a directory
  the caller names; when an actor dies, every shard rolls back to the last checkpoint saved
  and the dead actor is replaced. For a built-in game stated by rules the driver never builds
  the whole game: with ``result="rules"`` it returns the policy by information-set label and
  the streaming best response's exploitability.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Sequence
from typing import Any

import ray
from ray.exceptions import RayActorError

import bluff
from bluff import _bluff

__all__ = ["records", "solve_sharded", "sweep", "write_records"]

# Keyword arguments of bluff.solve a sweep job may carry besides `game`.
_SOLVE_KEYS = {
    "algo",
    "iterations",
    "target",
    "time",
    "threads",
    "check_every",
    "always_threads",
    "alpha",
    "beta",
    "gamma",
    "updates",
}
# The options a sharded run passes to the shards (as bluff.solve's).
_SHARD_KEYS = {"alpha", "beta", "gamma", "updates"}


def _ensure_ray() -> None:
    if not ray.is_initialized():
        ray.init()


def _game(game: str | bluff.Game) -> bluff.Game:
    return bluff.game(game) if isinstance(game, str) else game


def _check_job(i: int, job: dict[str, Any]) -> None:
    if "game" not in job:
        raise ValueError(f"job {i}: no 'game'")
    unknown = set(job) - _SOLVE_KEYS - {"game", "checkpoint_every", "_die_after_checkpoint"}
    if unknown:
        raise ValueError(f"job {i}: unknown keys {sorted(unknown)}")


def _solve_job(
    job: dict[str, Any], checkpoint: str | None, every: int | None, seconds: float | None
) -> bluff.SolveResult:
    """Runs one job: bluff.solve, or (CFR family with an iteration count and a checkpoint path)
    segment after segment from its checkpoint."""
    game = _game(job["game"])
    kwargs = {k: v for k, v in job.items() if k in _SOLVE_KEYS}
    resumable = (
        checkpoint is not None
        and kwargs.get("algo") != "lp"
        and kwargs.get("iterations") is not None
        and kwargs.get("time") is None
    )
    if not resumable:
        return bluff.solve(game, **kwargs)
    kwargs.pop("always_threads", None)
    # On a cluster the directory lives on shared storage; make sure this node sees it.
    os.makedirs(os.path.dirname(checkpoint), exist_ok=True)
    total = int(kwargs.pop("iterations"))
    step = int(every) if every else total
    upto = step
    while True:
        result = _bluff._solve_checkpointed(
            game,
            checkpoint,
            min(upto, total),
            iterations=total,
            checkpoint_seconds=seconds,
            **kwargs,
        )
        if result is not None:
            if os.path.exists(checkpoint):
                os.remove(checkpoint)
            return result
        # Test hook: the first attempt's worker dies right after its first checkpoint.
        marker = checkpoint + ".died"
        if job.get("_die_after_checkpoint") and not os.path.exists(marker):
            pathlib.Path(marker).touch()
            os._exit(1)
        upto += step


@ray.remote(max_retries=3)
def _solve_task(
    job: dict[str, Any], checkpoint: str | None, every: int | None, seconds: float | None
) -> bluff.SolveResult:
    return _solve_job(job, checkpoint, every, seconds)


def sweep(
    jobs: Sequence[dict[str, Any]],
    *,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    checkpoint_every: int | None = None,
    checkpoint_seconds: float | None = 60.0,
    num_cpus: float = 1,
    records_path: str | os.PathLike[str] | None = None,
) -> list[bluff.SolveResult]:
    """Runs `jobs` as Ray tasks; returns their results in order, equal to running
    ``bluff.solve(job["game"], **rest)`` one by one.

    Each job is a dict with ``game`` (a spec string or a :class:`bluff.Game`) and
    :func:`bluff.solve`'s keywords (``algo``, ``iterations``, ``target``, ...); a job's own
    ``checkpoint_every`` overrides the sweep's. CFR-family jobs with ``iterations`` checkpoint
    into `checkpoint_dir` (shared storage on a cluster; a fresh temporary directory when
    omitted, enough on one machine) every `checkpoint_every` iterations and every
    `checkpoint_seconds` of solving; a retried task resumes from its checkpoint. Each task asks
    Ray for `num_cpus` CPUs (and runs on one thread unless the job gives ``threads``). With
    `records_path`, :func:`records` of the results are written there as JSON lines.
    """
    jobs = list(jobs)
    for i, job in enumerate(jobs):
        _check_job(i, job)
    _ensure_ray()
    own_dir = checkpoint_dir is None
    directory = pathlib.Path(tempfile.mkdtemp(prefix="bluff-sweep-") if own_dir else checkpoint_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = f"{os.getpid()}-{time.time_ns()}"
    refs = []
    for i, job in enumerate(jobs):
        job = dict(job)
        job.setdefault("threads", 1)
        every = job.pop("checkpoint_every", checkpoint_every)
        path = str(directory / f"job-{stamp}-{i}.ckpt")
        refs.append(
            _solve_task.options(num_cpus=num_cpus).remote(job, path, every, checkpoint_seconds)
        )
    try:
        results = ray.get(refs)
    finally:
        if own_dir:
            shutil.rmtree(directory, ignore_errors=True)
    if records_path is not None:
        write_records(records_path, records(jobs, results))
    return results


def _plain(value: Any) -> Any:
    if isinstance(value, bluff.Game):
        return value.name
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


def records(
    jobs: Sequence[dict[str, Any]], results: Sequence[bluff.SolveResult]
) -> list[dict[str, Any]]:
    """Plain records of a sweep: each job's keys (a game by its name), the result's algorithm,
    iterations, exploitability, value, seconds, and its convergence curve as
    ``[iteration, exploitability, seconds]`` triples."""
    out = []
    for i, (job, r) in enumerate(zip(jobs, results)):
        rec = {k: _plain(v) for k, v in job.items() if not k.startswith("_")}
        rec.update(
            index=i,
            algo=r.algo,
            iterations=r.iterations,
            exploitability=float(r.exploitability),
            value=float(r.value),
            seconds=r.seconds,
            curve=[list(p) for p in r.curve],
        )
        out.append(rec)
    return out


def write_records(path: str | os.PathLike[str], recs: Iterable[dict[str, Any]]) -> None:
    """Writes `recs` as JSON lines (one record per line)."""
    with open(path, "w", encoding="utf-8") as f:
        for rec in recs:
            f.write(json.dumps(rec) + "\n")


def _memory() -> tuple[int, int]:
    """This process's resident memory, and its anonymous part (its own heap: without Ray's
    object store mapped in or files), in bytes (Linux; zeros elsewhere)."""
    out = {"VmRSS": 0, "RssAnon": 0}
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                key = line.split(":")[0]
                if key in out:
                    out[key] = int(line.split()[1]) * 1024
    except OSError:
        pass
    return out["VmRSS"], out["RssAnon"]


class _ShardActor:
    """One shard of a sharded run in a Ray actor (see :func:`solve_sharded`). Given a built-in
    spec, it compiles only its part of the tree from the game's rules and never holds the whole
    game; given a :class:`bluff.Game`, it holds the whole game."""

    def __init__(
        self,
        game: bluff.Game | str,
        algo: str,
        shards: int,
        index: int,
        options: dict[str, Any],
        resume: str | None,
        die_at: int | None,
    ) -> None:
        self.args = (game, algo, shards, index, options)
        self.die_at = die_at
        self.busy: list[tuple[str, float]] = []
        self.before = _memory()[1]
        self._make(resume)

    def _make(self, resume: str | None) -> None:
        game, algo, shards, index, options = self.args
        self.shard = _bluff._Shard(game, algo, shards, index, resume=resume, **options)

    def reset(self, resume: str | None) -> int:
        """Rolls back to the checkpoint `resume` (None: the start); returns the iteration."""
        self._make(resume)
        return self.shard.iterations()

    def phases(self) -> int:
        return self.shard.phases()

    def work(self) -> tuple[int, int]:
        return self.shard.work()

    def evaluate(self, phase: int) -> bytes:
        if self.die_at is not None and phase == 0 and self.shard.iterations() == self.die_at:
            os._exit(1)  # the test hook: this actor dies mid-run
        t = time.perf_counter()
        out = self.shard.evaluate(phase)
        self.busy.append(("evaluate", time.perf_counter() - t))
        return out

    def fold(self, phase: int, sums: bytes, *cuts: bytes) -> bytes:
        t = time.perf_counter()
        out = self.shard.fold(phase, b"".join(cuts), sums)
        self.busy.append(("fold", time.perf_counter() - t))
        return out

    def apply(self, phase: int, sums: bytes) -> int:
        t = time.perf_counter()
        self.shard.apply(phase, sums)
        self.busy.append(("apply", time.perf_counter() - t))
        return self.shard.iterations()

    def save(self, path: str) -> None:
        self.shard.save(path)

    def rss(self) -> tuple[int, int, int]:
        """Resident memory now, its anonymous part now, and that part before the shard was
        built, in bytes (Linux)."""
        return (*_memory(), self.before)

    def timings(self) -> list[tuple[str, float]]:
        out, self.busy = self.busy, []
        return out

    def profiles(self) -> tuple[int, list[bytes]]:
        return self.shard.profiles()

    def keys(self) -> list[bytes] | None:
        return self.shard.keys()


_CKPT = re.compile(r"shard-(\d+)-(\d+)\.ckpt$")


def _last_checkpoint(directory: pathlib.Path, at_most: int) -> int:
    """The last iteration up to `at_most` some shard has a checkpoint of (0: none). Every shard
    holds the whole solver state and a run is deterministic, so any shard's checkpoint of the
    same game and parameters (the shards check them) is this run's state at its iteration,
    whatever number of shards wrote it (each file is written whole or not at all)."""
    done = [it for it, _ in _checkpoints(directory) if it <= at_most]
    return max(done, default=0)


def _checkpoints(directory: pathlib.Path) -> Iterable[tuple[int, int]]:
    """(iteration, shard) of every shard checkpoint in `directory`."""
    for f in directory.iterdir():
        m = _CKPT.search(f.name)
        if m:
            yield int(m.group(2)), int(m.group(1))


def _ckpt(directory: pathlib.Path, k: int, iteration: int) -> str:
    return str(directory / f"shard-{k}-{iteration:010d}.ckpt")


def _resume_file(directory: pathlib.Path, k: int, iteration: int) -> str:
    """Shard `k`'s checkpoint of `iteration`, or, when it saved none (a run with fewer shards
    wrote them), the one of the first shard that did (every shard's state is the whole)."""
    own = _ckpt(directory, k, iteration)
    if os.path.exists(own):
        return own
    first = min(j for it, j in _checkpoints(directory) if it == iteration)
    return _ckpt(directory, first, iteration)


def solve_sharded(
    game: str | bluff.Game,
    shards: int = 2,
    algo: str = "cfr+",
    iterations: int = 100,
    *,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    checkpoint_every: int | None = None,
    cpus_per_shard: float | None = None,
    stats: dict[str, Any] | None = None,
    result: str = "auto",
    evaluate: bool = True,
    _kill: tuple[int, int] | None = None,
    **options: Any,
) -> bluff.SolveResult | bluff.RulesSolveResult:
    """Full-traversal CFR (`algo`: any of the CFR family; `options`: ``alpha``, ``beta``,
    ``gamma``, ``updates`` as :func:`bluff.solve` takes them) for `iterations` iterations on
    `game` split across `shards` Ray actors. The shards run the tree kernel, so the result's
    ``.policy`` equals ``bluff.solve(game, algo=algo, iterations=iterations,
    kernel="tree").policy`` exactly (the tree is ``bluff.solve``'s own choice on games whose
    tree fits the cache, Kuhn and Leduc among them); its curve holds the final measurement only.

    Each actor asks Ray for `cpus_per_shard` CPUs (default: the cluster's CPUs shared out, at
    most 1: fractional when shards outnumber CPUs). With `checkpoint_dir`, every shard saves a
    bluff checkpoint there every `checkpoint_every` iterations (default: a tenth of the run);
    when an actor dies, all shards roll back to the last iteration saved (any shard's file
    holds the whole state) and the dead actor is replaced (without a checkpoint directory, to
    the start); a run started again with the same directory resumes from there, with any
    number of shards. A dict given as `stats` receives per-run measurements (bytes exchanged
    per iteration, time in the shards, wall time, nodes each shard traverses and holds,
    whether the shards hold only their part, each actor's resident memory, its anonymous part
    (the actor's own heap) and that part before the shard was built, the iteration it resumed
    from). A built-in game with rules (a spec, or a :class:`bluff.Game` made from one) reaches
    the actors as its spec and each compiles only its part of the tree (the top and its own
    subtrees); another game reaches them whole.

    The driver builds no whole game from a spec while the shards run. Afterwards `result`
    chooses what it returns: ``"game"`` builds the game (the builder's node limit applies) and
    returns a :class:`bluff.SolveResult` as :func:`bluff.solve` does; ``"rules"`` (a built-in
    game with rules only) returns a :class:`bluff.RulesSolveResult` as
    :func:`bluff.solve_rules` does, with every set's average strategy keyed by its label, and
    with `evaluate` its exploitability by the streaming exact best response (the arena's to
    rounding, the same bits on any number of threads; memory per information set, no tree);
    ``"auto"`` (default) is ``"game"`` for a :class:`bluff.Game` or a game within the
    builder's limit, else ``"rules"``. `_kill=(shard, iteration)`
    is a test hook: that shard's actor exits when it starts the iteration after `iteration`.
    """
    if shards < 1:
        raise ValueError(f"shards={shards}: expected at least 1")
    if iterations < 1:
        raise ValueError(f"iterations={iterations}: expected at least 1")
    unknown = set(options) - _SHARD_KEYS
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}: expected {sorted(_SHARD_KEYS)}")
    if result not in ("auto", "game", "rules"):
        raise ValueError(f"result={result!r}: expected 'auto', 'game' or 'rules'")
    # A built-in game with rules travels as its spec: each actor compiles only its part, and
    # the driver builds no whole game.
    spec = game if isinstance(game, str) else game.spec
    g: bluff.Game | None = game if isinstance(game, bluff.Game) else None
    source: bluff.Game | str
    if spec is not None and _bluff._has_rules(spec):
        source = spec
    else:
        if result == "rules":
            raise ValueError("result='rules' needs a built-in game stated by rules")
        g = _game(game)
        source = g
    _ensure_ray()
    if cpus_per_shard is None:
        total = float(ray.cluster_resources().get("CPU", 1.0))
        cpus_per_shard = max(0.01, min(1.0, int(total / shards * 100) / 100))
    opts = dict(options, iterations=iterations)
    directory = pathlib.Path(checkpoint_dir) if checkpoint_dir is not None else None
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
    every = checkpoint_every or max(1, iterations // 10)
    actor_class = ray.remote(num_cpus=cpus_per_shard, max_restarts=0)(_ShardActor)

    def start(k: int, resume: str | None, die_at: int | None) -> Any:
        return actor_class.remote(source, algo, shards, k, opts, resume, die_at)

    def resume_at(iteration: int, k: int) -> str | None:
        if not iteration or directory is None:
            return None
        return _resume_file(directory, k, iteration)

    # A run started again with the same directory resumes from its last checkpoint.
    done = _last_checkpoint(directory, iterations) if directory is not None else 0
    actors = [
        start(k, resume_at(done, k), _kill[1] if _kill and _kill[0] == k else None)
        for k in range(shards)
    ]
    resumed_from = done
    exchanged = 0
    restarts = 0
    try:
        # Once every actor has built its shard, the clock starts.
        phases = ray.get(actors[0].phases.remote())
        work = ray.get([a.work.remote() for a in actors])
        if result == "auto":
            fits = work[0][3] <= _bluff._MAX_BUILT_IN_NODES
            result = "game" if g is not None or fits else "rules"
        wall = time.perf_counter()
        while done < iterations:
            try:
                for phase in range(phases):
                    cuts = [a.evaluate.remote(phase) for a in actors]
                    sums: Any = b""
                    for k, a in enumerate(actors):
                        sums = a.fold.remote(phase, sums, *(cuts if k == 0 else ()))
                    applied = [a.apply.remote(phase, sums) for a in actors]
                if not exchanged:
                    # Every iteration moves the same: the cut level's values to shard 0, the
                    # running sums along the chain (shards - 1 hops) and to every shard.
                    cut_bytes = sum(len(c) for c in ray.get(cuts))
                    sums_bytes = len(ray.get(sums))
                    exchanged = phases * (cut_bytes + (2 * shards - 1) * sums_bytes)
                ray.get(applied)
                done += 1
                if directory is not None and (done % every == 0 or done == iterations):
                    ray.get(
                        [a.save.remote(_ckpt(directory, k, done)) for k, a in enumerate(actors)]
                    )
                    for f in directory.iterdir():
                        m = _CKPT.search(f.name)
                        if m and int(m.group(2)) < done - every:
                            f.unlink(missing_ok=True)
            except RayActorError:
                restarts += 1
                if restarts > 3 * shards:
                    raise
                back = _last_checkpoint(directory, done) if directory is not None else 0
                for k, a in enumerate(actors):
                    resume = resume_at(back, k)
                    try:
                        ray.get(a.reset.remote(resume))
                    except RayActorError:
                        ray.kill(a)
                        actors[k] = start(k, resume, None)
                done = back
        seconds = time.perf_counter() - wall
        timings = ray.get([a.timings.remote() for a in actors])
        rss = ray.get([a.rss.remote() for a in actors])
        done_iterations, profiles = ray.get(actors[0].profiles.remote())
        # The sets' keys travel only when the result is made from the rules.
        keys = ray.get(actors[0].keys.remote()) if result == "rules" else None
    finally:
        for a in actors:
            ray.kill(a)
    out: bluff.SolveResult | bluff.RulesSolveResult
    if result == "rules":
        assert isinstance(source, str) and keys is not None
        out = _bluff._shard_rules_result(
            source, algo, done_iterations, profiles[:2], keys, seconds, evaluate
        )
    else:
        if g is None:
            assert isinstance(source, str)
            g = bluff.game(source)
        out = _bluff._shard_result(g, algo, done_iterations, profiles, seconds)
    if stats is not None:
        stats.update(
            shards=shards,
            iterations=iterations,
            wall_seconds=seconds,
            bytes_per_iteration=exchanged,
            restarts=restarts,
            resumed_from=resumed_from,
            shard_seconds=[
                {kind: sum(s for n, s in t if n == kind) for kind in ("evaluate", "fold", "apply")}
                for t in timings
            ],
            work=[w[:2] for w in work],
            held_nodes=[w[2] for w in work],
            game_nodes=work[0][3],
            partial=isinstance(source, str),
            rss_bytes=[r[0] for r in rss],
            anon_bytes=[r[1] for r in rss],
            anon_before_bytes=[r[2] for r in rss],
        )
    return out
