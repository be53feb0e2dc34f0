"""bluff.ray on a local Ray instance (issue 32): a sweep equals the solves one by one, a retried
task resumes to the same bits, sharded CFR is bit-identical to the single process for 1 to 3
shards, and a killed shard actor is replaced without changing a bit."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator

import pytest
import ray
from ray_support import (
    SHARDED_ALGOS,
    SHARDED_GAMES,
    assert_no_ray_left,
    assert_sharded_equals_one_process,
    one_by_one,
    same_result,
    sweep_jobs,
)

import bluff
import bluff.ray as bray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """ray.init(num_cpus=2, include_dashboard=False) in a temp directory of its own (so the
    check for processes left behind sees only this session's)."""
    tmp = tempfile.mkdtemp(prefix="bfr", dir="/tmp")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _temp_dir=tmp,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )
    try:
        yield
    finally:
        ray.shutdown()
        assert_no_ray_left(tmp)


def test_sweep_of_eight_solves_equals_them_one_by_one(local_ray: None, tmp_path) -> None:
    jobs = sweep_jobs()
    path = tmp_path / "records.jsonl"
    got = bray.sweep(jobs, records_path=path)
    want = one_by_one(jobs)
    assert len(got) == len(want) == 8
    for i, (g, w) in enumerate(zip(got, want)):
        assert same_result(g, w), i
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [r["index"] for r in lines] == list(range(8))
    assert lines[0]["game"] == "kuhn" and lines[6]["game"] == "matching pennies"
    assert lines[1]["curve"] == [list(p) for p in got[1].curve]
    assert lines[7]["algo"] == "lp" and lines[7]["exploitability"] == 0


def test_a_retried_sweep_task_resumes_to_the_same_bits(local_ray: None, tmp_path) -> None:
    job = {"game": "leduc", "algo": "cfr+", "iterations": 90, "check_every": 20}
    died = dict(job, checkpoint_every=30, _die_after_checkpoint=True)
    (got,) = bray.sweep([died], checkpoint_dir=tmp_path)
    # The first attempt's worker died after its first checkpoint (30 iterations); Ray retried
    # the task, which resumed from the checkpoint.
    assert len(list(tmp_path.glob("*.died"))) == 1
    assert not list(tmp_path.glob("*.ckpt"))
    (want,) = one_by_one([job])
    assert same_result(got, want)


@pytest.mark.parametrize("spec", SHARDED_GAMES)
@pytest.mark.parametrize("algo", SHARDED_ALGOS)
def test_sharded_cfr_is_bit_identical_for_1_2_3_shards(local_ray: None, spec, algo) -> None:
    assert_sharded_equals_one_process(spec, algo)


def test_a_killed_shard_actor_is_replaced_and_the_bits_stay(local_ray: None, tmp_path) -> None:
    stats: dict = {}
    got = bray.solve_sharded(
        bluff.game("leduc"),
        shards=3,
        algo="dcfr",
        iterations=100,
        checkpoint_dir=tmp_path,
        checkpoint_every=20,
        stats=stats,
        _kill=(1, 50),
    )
    assert stats["restarts"] == 1
    want = bluff.solve(bluff.game("leduc"), algo="dcfr", iterations=100)
    assert got.policy == want.policy
    # The last checkpoints are bluff's: the single-process CLI format, one per shard.
    assert sorted(p.name for p in tmp_path.glob("shard-*-0000000100.ckpt")) == [
        f"shard-{k}-0000000100.ckpt" for k in range(3)
    ]
    # Started again with the same directory and more iterations, the run resumes from its last
    # checkpoints (100) and ends as a 150-iteration run would.
    stats = {}
    more = bray.solve_sharded(
        "leduc", shards=2, algo="dcfr", iterations=150, checkpoint_dir=tmp_path, stats=stats
    )
    assert stats["resumed_from"] == 100
    assert more.policy == bluff.solve(bluff.game("leduc"), algo="dcfr", iterations=150).policy


def test_shards_of_a_spec_hold_their_part_and_of_a_file_the_whole_game(
    local_ray: None, tmp_path
) -> None:
    # A built-in game travels as its spec: each actor compiles the top and its own subtrees.
    spec = "liars-dice(sides=5)"
    stats: dict = {}
    got = bray.solve_sharded(bluff.game(spec), shards=3, algo="cfr", iterations=20, stats=stats)
    assert got.policy == bluff.solve(bluff.game(spec), algo="cfr", iterations=20).policy
    assert stats["partial"] and stats["game_nodes"] == bluff.game(spec).num_nodes
    # Each holds the levels above the cut (the game less every shard's work from the cut
    # down), its own work, and the rest of the cut level; under half of the game.
    above = stats["game_nodes"] - sum(own for own, _ in stats["work"])
    for held, (own, cut) in zip(stats["held_nodes"], stats["work"]):
        assert above + own <= held <= above + own + cut
    assert max(stats["held_nodes"]) * 2 < stats["game_nodes"]
    # A game read from a file has no rules: every actor holds it whole, with the same bits.
    path = tmp_path / "kuhn.efg"
    bluff.game("kuhn").write_efg(path)
    game = bluff.read_efg(path)
    assert game.spec is None
    stats = {}
    got = bray.solve_sharded(game, shards=2, algo="cfr+", iterations=30, stats=stats)
    assert got.policy == bluff.solve(game, algo="cfr+", iterations=30, kernel="tree").policy
    assert not stats["partial"] and stats["held_nodes"] == [game.num_nodes] * 2


def test_bad_sharded_requests_are_value_errors(local_ray: None) -> None:
    with pytest.raises(ValueError, match="shards"):
        bray.solve_sharded("kuhn", shards=0)
    with pytest.raises(ValueError, match="unknown options"):
        bray.solve_sharded("kuhn", shards=1, colour="red")
    with pytest.raises(ValueError, match="no 'game'"):
        bray.sweep([{"algo": "cfr"}])


def test_a_sharded_spec_gives_a_rules_result_without_the_whole_game(
    local_ray: None, tmp_path
) -> None:
    # result="rules": the driver never builds the game; every set's average strategy comes
    # labelled through the rules, its exploitability from the streaming best response.
    spec = "leduc"
    got = bray.solve_sharded(
        spec, shards=2, algo="cfr+", iterations=40, result="rules", checkpoint_dir=tmp_path
    )
    assert isinstance(got, bluff.RulesSolveResult)
    want = bluff.solve(bluff.game(spec), algo="cfr+", iterations=40, kernel="tree")
    table = want.policy.to_dict()
    for p in range(2):
        assert got.policy[p].keys() == table[p].keys()
        for label, probs in table[p].items():
            assert got.policy[p][label] == list(probs.values())
    assert got.exploitability == pytest.approx(want.exploitability, rel=1e-12, abs=1e-15)
    assert got.iterations == 40 and got.stats["infosets"] == [len(t) for t in table]
    # The shards' checkpoints name the game by its rules: a run started again resumes from
    # them, with another number of shards, and `evaluate=False` skips the best response.
    stats: dict = {}
    more = bray.solve_sharded(
        spec,
        shards=3,
        algo="cfr+",
        iterations=60,
        result="rules",
        evaluate=False,
        checkpoint_dir=tmp_path,
        stats=stats,
    )
    assert stats["resumed_from"] == 40 and more.exploitability is None
    table = bluff.solve(bluff.game(spec), algo="cfr+", iterations=60, kernel="tree").policy
    assert more.policy[1] == {k: list(v.values()) for k, v in table.to_dict()[1].items()}
    # A shard refuses a checkpoint of another game.
    with pytest.raises(ValueError, match="another game"):
        bluff._bluff._Shard(
            "liars-dice(sides=4)", "cfr+", 2, 0, resume=str(tmp_path / "shard-0-0000000060.ckpt")
        )
    with pytest.raises(ValueError, match="result="):
        bray.solve_sharded(spec, shards=2, result="tree")
    game = bluff.read_efg(_kuhn_file(tmp_path))
    with pytest.raises(ValueError, match="stated by rules"):
        bray.solve_sharded(game, shards=2, result="rules")


def _kuhn_file(tmp_path) -> str:
    path = tmp_path / "kuhn.efg"
    bluff.game("kuhn").write_efg(path)
    return str(path)
