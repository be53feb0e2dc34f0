"""OpenSpiel's side of the Monte Carlo CFR benchmarks (bench/mccfr_vs_peers.py,
bench/mccfr_es_rate.py, bench/mccfr_engines.py, bench/mccfr_equal_traversals.py): the games as
OpenSpiel states them, and the iteration rate of its C++ sampling solvers driven from Python
(`run_iteration()` in a loop, as its examples do).

A `run_iteration()` of either solver is one traversal per player (two in a two-player game),
as a bluff iteration is: OpenSpiel 2.0.2's `OutcomeSamplingMCCFRSolver::RunIteration` loops
over the players (open_spiel/algorithms/outcome_sampling_mccfr.cc), like its external sampling.
"""

from __future__ import annotations

import time

import pyspiel


def leduc() -> pyspiel.Game:
    """Leduc poker."""
    return pyspiel.load_game("leduc_poker")


def liars_dice(sides: int = 6) -> pyspiel.Game:
    """Liar's dice with one die of `sides` sides per player."""
    return pyspiel.load_game("liars_dice", {"numdice": 1, "dice_sides": sides})


def goofspiel(cards: int) -> pyspiel.Game:
    """Goofspiel with `cards` cards, random point order, imperfect information, turn-based."""
    return pyspiel.convert_to_turn_based(
        pyspiel.load_game(
            "goofspiel", {"num_cards": cards, "imp_info": True, "points_order": "random"}
        )
    )


def goofspiel5() -> pyspiel.Game:
    """Goofspiel with 5 cards, random point order, imperfect information, turn-based."""
    return goofspiel(5)


def solver(game: pyspiel.Game, algo: str, seed: int) -> pyspiel.ExternalSamplingMCCFRSolver:
    """OpenSpiel's C++ external ("es") or outcome ("os", epsilon 0.6) sampling solver."""
    if algo == "es":
        return pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    return pyspiel.OutcomeSamplingMCCFRSolver(game, epsilon=0.6, seed=seed)


def rate(game: pyspiel.Game, algo: str, seconds: float, seed: int) -> float:
    """`run_iteration()` calls per second of a fresh `solver(game, algo, seed)` over `seconds`."""
    s = solver(game, algo, seed)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            s.run_iteration()
        n += 100
    return n / (time.perf_counter() - start)
