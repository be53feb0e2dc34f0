"""from_openspiel's native route: OpenSpiel games bluff has built in, built from the built-in.

The native route must give the very game the traversal gives. Each case below is imported
both ways and compared node for node: the .efg text (tree shape in depth-first order, chance
probabilities as exact fractions, payoffs, information-set numbering and labels, action labels
and order) and every size and label list. Exploitability against OpenSpiel's nash_conv, CFR+
iterates and TabularPolicy round trips on the native route are in test_openspiel.py (its
fixtures import every game both ways).
"""

from __future__ import annotations

import pyspiel
import pytest

import bluff

SAME_GAME = [
    "kuhn_poker",
    "leduc_poker",
    "liars_dice(numdice=1,dice_sides=3)",
    "liars_dice(numdice=1,dice_sides=4)",
    "liars_dice(numdice=2,dice_sides=2)",
    "goofspiel(num_cards=3,imp_info=True)",
    "goofspiel(num_cards=4,imp_info=True)",
    "goofspiel(num_cards=4,imp_info=True,points_order=descending)",
    "goofspiel(num_cards=3,imp_info=True,points_order=ascending,returns_type=point_difference)",
    "goofspiel(num_cards=4,imp_info=True,points_order=descending,returns_type=point_difference)",
]


def forms(name: str) -> list[pyspiel.Game]:
    """The game as loaded and, for a simultaneous-move game, OpenSpiel's turn-based form."""
    game = pyspiel.load_game(name)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        return [game, pyspiel.convert_to_turn_based(game)]
    return [game]


@pytest.mark.parametrize("name", SAME_GAME)
def test_native_route_builds_the_traversed_game_node_for_node(name, tmp_path):
    for og in forms(name):
        native = bluff.from_openspiel(og, native=True)
        traversed = bluff.from_openspiel(og, native=False)
        a, b = tmp_path / "native.efg", tmp_path / "traversed.efg"
        native.write_efg(a)
        traversed.write_efg(b)
        assert a.read_text() == b.read_text(), str(og)
        assert native.name == traversed.name == str(og)
        assert native.players == traversed.players
        assert native.num_nodes == traversed.num_nodes
        assert native.num_terminals == traversed.num_terminals
        assert native.num_sequences == traversed.num_sequences
        assert native.constant_sum == traversed.constant_sum
        for player in (0, 1):
            assert native.infosets(player) == traversed.infosets(player)
            assert native.action_labels(player) == traversed.action_labels(player)


def test_native_labels_are_openspiel_information_state_strings():
    """Spot check against pyspiel directly: the first decision's string and actions."""
    og = pyspiel.load_game("leduc_poker")
    state = og.new_initial_state().child(5).child(0)  # K of hearts, then J of spades
    game = bluff.from_openspiel(og, native=True)
    label = state.information_state_string(0)
    assert label in game.infosets(0)
    assert game.actions(0, label) == [state.action_to_string(0, a) for a in state.legal_actions()]


@pytest.mark.parametrize(
    "name",
    [
        "kuhn_poker(players=3)",
        "leduc_poker(suit_isomorphism=True)",
        "leduc_poker(action_mapping=True)",
        "liars_dice(numdice=1,dice_sides=3,bidding_rule=reset-quantity)",
        "goofspiel(num_cards=3)",  # perfect information
        "goofspiel(num_cards=3,imp_info=True,egocentric=True)",
        "goofspiel(num_cards=3,imp_info=True,num_turns=2)",
        "tiny_hanabi",
    ],
)
def test_native_route_refuses_games_that_differ(name):
    with pytest.raises(bluff.UnsupportedGameError, match="no identical built-in"):
        bluff.from_openspiel(pyspiel.load_game(name), native=True)


def test_default_route_traverses_games_without_a_built_in():
    og = pyspiel.load_game("liars_dice(numdice=1,dice_sides=3,bidding_rule=reset-quantity)")
    assert bluff.from_openspiel(og).num_nodes == bluff.from_openspiel(og, native=False).num_nodes


def test_native_route_checks_max_nodes():
    with pytest.raises(bluff.UnsupportedGameError, match="max_nodes=1000"):
        bluff.from_openspiel(
            pyspiel.load_game("liars_dice(numdice=1,dice_sides=4)"), max_nodes=1000
        )
    assert bluff.from_openspiel(pyspiel.load_game("kuhn_poker"), max_nodes=58).num_nodes == 58


def test_short_name_is_read_from_the_game_string():
    """The native route reads the short name from str(game) (OpenSpiel writes
    `short_name(params)`) instead of calling get_type(): the two agree on every registered
    game that loads with its default parameters, and on turn-based conversions."""
    checked = 0
    for name in pyspiel.registered_names():
        try:
            game = pyspiel.load_game(name)
        except (pyspiel.SpielError, IndexError, RuntimeError):
            continue  # needs parameters or data files to load
        assert str(game).split("(")[0] == game.get_type().short_name, name
        checked += 1
    assert checked > 80
    turn_based = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel(imp_info=True)"))
    assert str(turn_based).split("(")[0] == turn_based.get_type().short_name
