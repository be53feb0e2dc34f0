"""bluff.ray against a Ray cluster started with `ray start --head` on 127.0.0.1 and joined with
ray.init(address="auto") (issue 32): the sweep and the sharded runs hold there too, and `ray
stop` leaves no Ray process of the cluster behind."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
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

import bluff.ray as bray

RAY = str(pathlib.Path(sys.executable).parent / "ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A one-node cluster on loopback in a temp directory of its own; stopped after the module
    (`ray stop`), and no process of it may remain."""
    tmp = tempfile.mkdtemp(prefix="bfc", dir="/tmp")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    subprocess.run(
        [
            RAY,
            "start",
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            "--temp-dir",
            tmp,
        ],
        check=True,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    try:
        ray.init(address="auto", log_to_driver=False)
        yield
    finally:
        ray.shutdown()
        subprocess.run([RAY, "stop"], env=env, stdin=subprocess.DEVNULL, capture_output=True)
        assert_no_ray_left(tmp)


def test_sweep_on_the_cluster_equals_one_by_one(cluster: None) -> None:
    jobs = sweep_jobs()
    for i, (g, w) in enumerate(zip(bray.sweep(jobs), one_by_one(jobs))):
        assert same_result(g, w), i


@pytest.mark.parametrize("spec", SHARDED_GAMES)
@pytest.mark.parametrize("algo", SHARDED_ALGOS)
def test_sharded_on_the_cluster_is_bit_identical(cluster: None, spec, algo) -> None:
    assert_sharded_equals_one_process(spec, algo)
