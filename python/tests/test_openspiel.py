"""bluff against OpenSpiel: imported games, exploitability, CFR+ iterates, policies, .efg files."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability

import bluff

# The games of the issue; goofspiel is simultaneous-move, imported through OpenSpiel's own
# turn-based conversion (the same conversion is applied to the game nash_conv sees).
GAMES = [
    "kuhn_poker",
    "leduc_poker",
    "liars_dice(numdice=1,dice_sides=3)",
    "liars_dice(numdice=1,dice_sides=4)",
    "goofspiel(num_cards=4,imp_info=True)",
]


def load(name: str) -> pyspiel.Game:
    game = pyspiel.load_game(name)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


@pytest.fixture(scope="module", params=GAMES)
def pair(request: pytest.FixtureRequest) -> tuple[pyspiel.Game, bluff.Game]:
    og = load(request.param)
    return og, bluff.from_openspiel(og)


def random_policy(game: bluff.Game, seed: int) -> bluff.Policy:
    rng = np.random.default_rng(seed)
    arrays = []
    for player in (0, 1):
        out = np.zeros(game.num_actions[player])
        offset = 0
        for label in game.infosets(player):
            n = len(game.actions(player, label))
            x = rng.random(n) + 0.01
            out[offset : offset + n] = x / x.sum()
            offset += n
        arrays.append(out)
    return bluff.Policy.from_numpy(game, arrays)


def test_exploitability_equals_openspiel_nash_conv(pair):
    og, game = pair
    solved = bluff.solve(game, algo="cfr+", iterations=30, threads=1)
    for policy in [solved.policy, random_policy(game, 1), bluff.Policy.uniform(game)]:
        ours = bluff.evaluate(game, policy)
        theirs = os_exploitability.nash_conv(og, policy.to_openspiel(og)) / 2
        assert abs(ours.exploitability - theirs) < 1e-9
        assert abs(ours.nash_conv - 2 * theirs) < 1e-9
    assert abs(solved.exploitability - bluff.evaluate(game, solved.policy).exploitability) < 1e-12


def test_simultaneous_game_is_imported_through_turn_based_conversion():
    simultaneous = bluff.from_openspiel(pyspiel.load_game("goofspiel(num_cards=3,imp_info=True)"))
    turn_based = bluff.from_openspiel(load("goofspiel(num_cards=3,imp_info=True)"))
    assert simultaneous.num_nodes == turn_based.num_nodes
    assert simultaneous.num_infosets == turn_based.num_infosets


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_cfr_plus_iterates_equal_openspiel_cfr_plus_solver(name):
    og = load(name)
    game = bluff.from_openspiel(og)
    solver = os_cfr.CFRPlusSolver(og)
    for _ in range(10):
        solver.evaluate_and_update_policy()
    ours = bluff.solve(game, algo="cfr+", iterations=10, threads=1)
    for mine, theirs in [
        (ours.policy, solver.average_policy()),
        (ours.current_policy, solver.current_policy()),
    ]:
        converted = mine.to_openspiel(og)
        rows = list(converted.state_lookup.values())
        np.testing.assert_allclose(
            converted.action_probability_array[rows],
            theirs.action_probability_array[
                [theirs.state_lookup[k] for k in converted.state_lookup]
            ],
            rtol=0,
            atol=1e-12,
        )


def test_tabular_policy_round_trip(pair):
    og, game = pair
    policy = random_policy(game, 7)
    tabular = policy.to_openspiel(og)
    back = bluff.Policy.from_openspiel(game, tabular)
    for player in (0, 1):
        np.testing.assert_allclose(back.to_numpy()[player], policy.to_numpy()[player], atol=1e-15)
    # evaluate() also takes the TabularPolicy itself.
    assert (
        abs(
            bluff.evaluate(game, tabular).exploitability
            - bluff.evaluate(game, policy).exploitability
        )
        < 1e-12
    )


def test_imported_kuhn_matches_builtin_kuhn_exactly():
    imported = bluff.from_openspiel(pyspiel.load_game("kuhn_poker"))
    builtin = bluff.game("kuhn")
    assert imported.num_nodes == builtin.num_nodes
    assert imported.num_sequences == builtin.num_sequences
    assert bluff.solve(imported, algo="lp").value == bluff.solve(builtin, algo="lp").value


def test_refuses_games_outside_two_player_zero_sum():
    with pytest.raises(bluff.UnsupportedGameError, match="3 players"):
        bluff.from_openspiel(pyspiel.load_game("kuhn_poker(players=3)"))
    with pytest.raises(bluff.UnsupportedGameError, match="general-sum"):
        bluff.from_openspiel(pyspiel.load_game("matrix_pd"))
    with pytest.raises(bluff.UnsupportedGameError, match="max_nodes=100"):
        bluff.from_openspiel(pyspiel.load_game("leduc_poker"), max_nodes=100)
    assert issubclass(bluff.UnsupportedGameError, ValueError)


def test_every_builtin_game_exported_to_efg_loads_in_openspiel(tmp_path):
    """OpenSpiel's efg_game parser reads bluff's .efg files and finds the same game."""
    names = [name for name, _ in bluff.builtin_games()]
    assert "kuhn" in names and "leduc" in names
    for name in names:
        game = bluff.game(name)
        path = tmp_path / f"{name}.efg"
        game.write_efg(path)
        og = pyspiel.load_game(f"efg_game(filename={path})")
        back = bluff.from_openspiel(og)
        assert back.num_nodes == game.num_nodes, name
        assert back.num_infosets == game.num_infosets, name
        # Same game: the uniform policy has the same exact value and exploitability.
        ours = bluff.evaluate(game, bluff.Policy.uniform(game), exact=True)
        theirs = bluff.evaluate(back, bluff.Policy.uniform(back), exact=True)
        assert ours.value == theirs.value, name
        assert ours.nash_conv == theirs.nash_conv, name
        if game.num_nodes < 5000:
            theirs_os = os_exploitability.nash_conv(og, bluff.Policy.uniform(back).to_openspiel(og))
            assert abs(float(ours.nash_conv) - theirs_os) < 1e-9, name
