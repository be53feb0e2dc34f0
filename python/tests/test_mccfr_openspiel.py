"""bluff's sampling solvers against OpenSpiel 2.0.2's C++ ones at equal traversals: N bluff
iterations and N `run_iteration()` calls are both one traversal per player (2N traversals).
The smallest size of bench/mccfr_equal_traversals.py (which runs 8 seeds on three games at
10 000, 40 000 and 200 000 iterations): bluff's mean NashConv over the seeds is at most
OpenSpiel's plus the two means' combined standard error."""

from __future__ import annotations

import json
import math
import pickle
import subprocess

import pyspiel
import pytest

ITERATIONS = 10_000
SEEDS = range(8)
# (bluff spec, OpenSpiel game): Leduc and liar's dice 1x5 with 8 seeds each keep the test near
# a minute of CPU; the benchmark adds goofspiel 4 and the larger sizes.
GAMES = {
    "leduc": ("leduc", lambda: pyspiel.load_game("leduc_poker")),
    "liars-dice-1x5": (
        "liars-dice(dice=1,sides=5)",
        lambda: pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": 5}),
    ),
}


def openspiel_solver(game: pyspiel.Game, algo: str, seed: int):
    if algo == "es":
        return pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    return pyspiel.OutcomeSamplingMCCFRSolver(game, epsilon=0.6, seed=seed)


def openspiel_nash_conv(game: pyspiel.Game, algo: str, seed: int) -> float:
    solver = openspiel_solver(game, algo, seed)
    for _ in range(ITERATIONS):
        solver.run_iteration()
    # OpenSpiel's OS average policy answers by state only.
    return pyspiel.nash_conv(game, solver.average_policy(), True)


def bluff_nash_conv(cli, spec: str, algo: str, seed: int) -> float:
    args = [str(cli), "solve", spec, "--algo", f"{algo}-mccfr", "--iterations", str(ITERATIONS)]
    args += ["--seed", str(seed), "--threads", "1", "--json"]
    r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert r["iterations"] == ITERATIONS
    assert r["traversals"] == 2 * ITERATIONS
    return r["nash_conv"]


def mean_sd(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def test_openspiel_outcome_sampling_iteration_is_one_traversal_per_player():
    """The count the comparison rests on: one OS `run_iteration()` on Kuhn moves regrets at
    both players' information sets (player 0's strings have an odd length: "0", "1pb"; player
    1's an even one: "2p", "0b"), as one ES `run_iteration()` does."""
    game = pyspiel.load_game("kuhn_poker")
    for algo in ["es", "os"]:
        for seed in range(5):
            solver = openspiel_solver(game, algo, seed)
            solver.run_iteration()
            text = pickle.dumps(solver).decode("latin1")
            parts = text[text.index("[SolverValuesTable]") :].split("\n", 1)[1].split("<~>")
            updated = set()
            for name, values in zip(parts[0::2], parts[1::2]):
                regrets = values.split(";")[1].split(",")
                # OpenSpiel starts every regret at kInitialTableValues = 1e-6.
                if any(float.fromhex(r) != 1e-6 for r in regrets):
                    updated.add(len(name) % 2)
            assert updated == {0, 1}, (algo, seed, parts[:6])


@pytest.mark.parametrize("algo", ["es", "os"])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_bluff_is_no_worse_than_openspiel_at_equal_traversals(cli, name, algo):
    spec, load = GAMES[name]
    game = load()
    b = [bluff_nash_conv(cli, spec, algo, s) for s in SEEDS]
    o = [openspiel_nash_conv(game, algo, s) for s in SEEDS]
    (mb, sb), (mo, so) = mean_sd(b), mean_sd(o)
    se = math.sqrt((sb**2 + so**2) / len(SEEDS))
    assert mb <= mo + se, (name, algo, b, o)
