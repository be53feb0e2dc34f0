"""Locks (`lock=`) and best responses (`bluff.best_response`) in Python."""

from __future__ import annotations

import json
import pathlib
from fractions import Fraction

import pytest

import bluff

ROOT = pathlib.Path(__file__).resolve().parents[2]
HALF = ROOT / "tests" / "data" / "locks" / "kuhn_jack_half.json"


def test_a_lock_as_a_dict_a_path_or_a_policy() -> None:
    kuhn = bluff.game("kuhn")
    as_dict = {"strategy": {"P1": {"J": {"Pass": Fraction(1, 2), "Bet": Fraction(1, 2)}}}}
    # Kuhn with P1's jack betting half the time: (1 - 6 alpha) / 18 = -1/9.
    assert bluff.solve(kuhn, algo="lp", lock=as_dict).value == Fraction(-1, 9)
    assert bluff.solve(kuhn, algo="lp", lock=HALF).value == Fraction(-1, 9)
    assert bluff.solve(kuhn, algo="lp", lock=str(HALF)).value == Fraction(-1, 9)
    loaded = json.loads(HALF.read_text())
    assert bluff.solve(kuhn, algo="lp", lock=loaded).value == Fraction(-1, 9)
    result = bluff.solve(kuhn, algo="cfr+", target=1e-7, lock=as_dict)
    assert abs(result.value + 1 / 9) < 1e-6
    # An equilibrium locked whole (both players): the value stays the game's.
    eq = bluff.solve(kuhn, algo="lp").policy
    assert bluff.solve(kuhn, algo="lp", lock=eq).value == Fraction(-1, 18)


def test_bad_locks_name_the_set_and_action() -> None:
    kuhn = bluff.game("kuhn")
    with pytest.raises(ValueError, match='"P1" "J" "Bet": NaN is not a probability'):
        bluff.solve(kuhn, algo="lp", lock={"strategy": {"P1": {"J": {"Bet": float("nan")}}}})
    with pytest.raises(ValueError, match='P1 "J": no action "Raise"'):
        bluff.solve(kuhn, algo="lp", lock={"strategy": {"P1": {"J": {"Raise": 1}}}})
    with pytest.raises(ValueError, match='the file is for game "leduc", not "kuhn"'):
        bluff.solve(kuhn, algo="lp", lock={"game": "leduc", "strategy": {}})
    with pytest.raises(ValueError, match="lock= does not apply to lcp"):
        bluff.solve(kuhn, algo="lcp", lock=HALF)


def test_best_response_gains_what_evaluate_reports() -> None:
    kuhn = bluff.game("kuhn")
    rough = bluff.solve(kuhn, algo="cfr", iterations=3).policy
    scored = bluff.evaluate(kuhn, rough, exact=True)
    for player in (0, 1):
        br = bluff.best_response(kuhn, rough, player)
        values = bluff.evaluate(kuhn, br, exact=True).value
        assert values[player] == scored.best_response_value[player]
    with pytest.raises(ValueError, match="player=2"):
        bluff.best_response(kuhn, rough, 2)
