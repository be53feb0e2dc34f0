"""The Python API as a hostile or careless caller uses it: every bad argument raises a typed
exception (a ValueError subclass, IndexError, TypeError or OSError) with a short message naming
the field, never a crash, a hang or an echo of a huge or terminal-hijacking string."""

from __future__ import annotations

import math
import pathlib
from fractions import Fraction

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy

import bluff

HOSTILE = "\x1b]0;owned\x07\x1b[31m" + "x" * 100_000


def assert_tame(error: BaseException) -> None:
    """The message is short and has no control character."""
    text = str(error)
    assert len(text) < 1000, len(text)
    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text), repr(text[:200])


def test_builder_refuses_bad_numbers_with_short_messages():
    b = bluff.GameBuilder()
    for bad in (math.nan, math.inf, "1/0", "half", HOSTILE, "1" + "0" * 20_000):
        with pytest.raises(ValueError) as e:
            b.terminal(b.root, bad)
        assert_tame(e.value)
    with pytest.raises(ValueError, match="digits"):
        b.terminal(b.root, Fraction(10**20_000, 3))


def test_builder_refuses_bad_nodes_and_players_as_value_and_index_errors():
    b = bluff.GameBuilder()
    for node in (-1, 1, 10**30):
        with pytest.raises((IndexError, OverflowError)):
            b.terminal(node, 1)
    with pytest.raises(IndexError):
        b.terminal(-5, 1)
    for player in (-1, 2, 7):
        with pytest.raises(ValueError, match=f"player {player}: expected 0 or 1"):
            b.decision(b.root, player, "s", ["a", "b"])
    with pytest.raises(TypeError):
        b.decision(b.root, 0, 5, ["a"])  # type: ignore[arg-type]


def test_builder_refuses_bad_chance_and_actions():
    b = bluff.GameBuilder()
    with pytest.raises(bluff.GameError, match="negative probability"):
        b.chance(b.root, [("a", -0.5), ("b", 1.5)])
    with pytest.raises(bluff.GameError, match="no actions"):
        b.chance(b.root, [])
    with pytest.raises(bluff.GameError, match="duplicate action") as e:
        b.decision(b.root, 0, "s", [HOSTILE, HOSTILE])
    assert_tame(e.value)
    with pytest.raises(bluff.GameError, match="sum to 2/3"):
        b.chance(b.root, {"a": "1/3", "b": "1/3"})


def test_a_built_builder_cannot_be_reused():
    b = bluff.GameBuilder()
    b.terminal(b.root, 0)
    b.build()
    with pytest.raises(ValueError, match="already been built"):
        b.build()
    with pytest.raises(ValueError, match="already been built"):
        b.terminal(b.root, 1)


def test_policies_with_wrong_shapes_or_values_raise_policy_errors():
    game = bluff.game("kuhn")
    uniform = bluff.Policy.uniform(game).to_dict()
    first = game.infosets(0)[0]
    cases = [
        [{**uniform[0], HOSTILE: {"Pass": 1}}, uniform[1]],
        [{s: {a: math.nan for a in d} for s, d in uniform[0].items()}, uniform[1]],
        [{**uniform[0], first: {"Pass": -1, "Bet": 2}}, uniform[1]],
        [{**uniform[0], first: {"Pass": 1}}, uniform[1]],
        [{**uniform[0], first: [0.5, 0.5]}, uniform[1]],
        [uniform[0], uniform[1], uniform[1]],
        [uniform[0]],
    ]
    for data in cases:
        with pytest.raises(bluff.PolicyError) as e:
            bluff.Policy.from_dict(game, data)
        assert_tame(e.value)
    with pytest.raises(ValueError, match="not a number"):
        bluff.Policy.from_dict(
            game, [{s: {a: "half" for a in d} for s, d in uniform[0].items()}, uniform[1]]
        )


def test_numpy_policies_of_the_wrong_shape_or_values_raise():
    game = bluff.game("kuhn")
    n0, n1 = game.num_actions
    for arrays in (
        [np.zeros((2, 2)), np.zeros(n1)],
        [np.zeros(n0 + 1), np.zeros(n1)],
        [np.full(n0, np.nan), np.full(n1, 0.5)],
        [np.ones(n0, dtype=int), np.ones(n1, dtype=int)],
        [np.full(n0, 0.5)],
    ):
        with pytest.raises(bluff.PolicyError):
            bluff.Policy.from_numpy(game, arrays)


def test_evaluate_refuses_foreign_policies():
    kuhn, leduc = bluff.game("kuhn"), bluff.game("leduc")
    with pytest.raises(bluff.PolicyError, match="different information sets"):
        bluff.evaluate(leduc, bluff.Policy.uniform(kuhn))
    for junk in (None, "uniform", 3, [1, 2]):
        with pytest.raises(bluff.PolicyError):
            bluff.evaluate(kuhn, junk)  # type: ignore[arg-type]
    imported = bluff.from_openspiel(pyspiel.load_game("kuhn_poker"))
    leduc_policy = openspiel_policy.TabularPolicy(pyspiel.load_game("leduc_poker"))
    with pytest.raises(bluff.PolicyError, match="not in the OpenSpiel policy"):
        bluff.evaluate(imported, leduc_policy)
    with pytest.raises(bluff.PolicyError, match="not in the OpenSpiel policy"):
        bluff.Policy.from_openspiel(imported, leduc_policy)


def test_from_openspiel_on_unusual_games():
    with pytest.raises(TypeError, match="pyspiel game"):
        bluff.from_openspiel(42)
    with pytest.raises(bluff.UnsupportedGameError, match="3 players"):
        bluff.from_openspiel(pyspiel.load_game("kuhn_poker(players=3)"))
    with pytest.raises(bluff.UnsupportedGameError, match="no information_state_string"):
        bluff.from_openspiel(pyspiel.load_game("gin_rummy"))
    with pytest.raises(bluff.UnsupportedGameError, match="max_nodes=1000"):
        bluff.from_openspiel(pyspiel.load_game("tic_tac_toe"), max_nodes=1000)
    # A simultaneous-move matrix game imports through OpenSpiel's turn-based conversion, with
    # rock-paper-scissors' value 0 exactly.
    rps = bluff.from_openspiel(pyspiel.load_game("matrix_rps"))
    assert bluff.solve(rps, algo="lp").value == 0
    # A general-sum matrix game (prisoner's dilemma) imports as a general-sum game.
    assert bluff.from_openspiel(pyspiel.load_game("matrix_pd")).general_sum


def test_game_specs_and_files_from_python():
    for spec in ("", HOSTILE, "kuhn(" + HOSTILE + "=1)", "leduc(x=1)"):
        with pytest.raises(ValueError) as e:
            bluff.game(spec)
        assert_tame(e.value)
    with pytest.raises(ValueError, match="read_efg"):
        bluff.game("tree.EFG")
    with pytest.raises(OSError):
        bluff.read_efg("/nonexistent/dir/g.efg")


def test_files_are_written_by_the_safe_rules(tmp_path: pathlib.Path):
    game = bluff.game("kuhn")
    target = tmp_path / "kuhn.efg"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.efg"
    link.symlink_to(target.name)
    game.write_efg(link)
    assert link.is_symlink() and target.read_text().startswith("EFG 2 R")
    assert target.stat().st_mode & 0o777 == 0o600
    game.write_efg("/dev/null")
    assert pathlib.Path("/dev/null").is_char_device()
    with pytest.raises(OSError, match="a folder"):
        game.write_efg(tmp_path)
    with pytest.raises(OSError):
        game.write_efg(tmp_path / "missing" / "g.efg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kuhn.efg", "link.efg"]


def test_solve_refuses_bad_stop_rules_and_threads():
    game = bluff.game("kuhn")
    with pytest.raises(ValueError, match="threads=0"):
        bluff.solve(game, algo="cfr", iterations=1, threads=0)
    with pytest.raises(ValueError, match="target=NaN"):
        bluff.solve(game, algo="cfr", target=math.nan)
    with pytest.raises(ValueError, match="time="):
        bluff.solve(game, algo="cfr", time=-1.0)
    with pytest.raises(ValueError, match="iterations=0"):
        bluff.solve(game, algo="cfr", iterations=0)
    with pytest.raises(ValueError, match="algo") as e:
        bluff.solve(game, algo=HOSTILE, iterations=1)
    assert_tame(e.value)
