"""bluff against OpenSpiel: imported games, exploitability, CFR+ iterates, policies, .efg files."""

from __future__ import annotations

import _thread
import gc
import math
import threading
import time
import types
from fractions import Fraction

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import expected_game_score
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


@pytest.fixture(
    scope="module",
    params=[(name, native) for name in GAMES for native in (True, False)],
    ids=lambda p: f"{p[0]}-{'native' if p[1] else 'traversal'}",
)
def pair(request: pytest.FixtureRequest) -> tuple[pyspiel.Game, bluff.Game]:
    """Each game by both routes: built natively from bluff's built-in, and traversed."""
    name, native = request.param
    og = load(name)
    return og, bluff.from_openspiel(og, native=native)


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


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_cfr_plus_iterates_equal_openspiel_cfr_plus_solver(name, native):
    og = load(name)
    game = bluff.from_openspiel(og, native=native)
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
    assert bluff.from_openspiel(pyspiel.load_game("matrix_pd")).general_sum
    for native in (None, False):
        with pytest.raises(bluff.UnsupportedGameError, match="max_nodes=100"):
            bluff.from_openspiel(pyspiel.load_game("leduc_poker"), max_nodes=100, native=native)
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


class TreeState:
    """A pyspiel-like state over a nested tree, for importer cases OpenSpiel's games never
    produce. A node is ("chance", [(action, prob, child)]), ("move", player, info, {action:
    child}) or ("end", returns); an `info` of None makes information_state_string raise."""

    def __init__(self, node):
        self.node = node

    def current_player(self):
        kind = self.node[0]
        if kind == "end":
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE) if kind == "chance" else self.node[1]

    def returns(self):
        return list(self.node[1])

    def chance_outcomes(self):
        return [(a, p) for a, p, _ in self.node[1]]

    def information_state_string(self, player):
        if self.node[2] is None:
            raise RuntimeError("no information state here")
        return self.node[2]

    def legal_actions(self):
        return sorted(self.node[3])

    def action_to_string(self, player, action):
        return f"a{action}"

    def child(self, action):
        if self.node[0] == "chance":
            return TreeState(next(c for a, _, c in self.node[1] if a == action))
        return TreeState(self.node[3][action])


class TreeGame:
    """A pyspiel-like two-player zero-sum sequential game over a TreeState tree."""

    def __init__(self, root, utility="ZERO_SUM"):
        self.root = root
        self.utility = utility

    def __str__(self):
        return "tree()"

    def num_players(self):
        return 2

    def get_type(self):
        name = types.SimpleNamespace
        return name(
            utility=name(name=self.utility),
            chance_mode=name(name="EXPLICIT_STOCHASTIC"),
            dynamics=name(name="SEQUENTIAL"),
            provides_information_state_string=True,
        )

    def new_initial_state(self):
        return TreeState(self.root)


def pennies(row_info="row", col_actions=(0, 1), payoff=2.0, prob=0.25):
    """Chance picks the stakes s (1 with probability 1 - prob, 2 with prob); Row then Column
    play matching pennies without seeing each other (heads-heads pays Row 2s, tails-tails s,
    a mismatch -s); Row's value is s/5 by the indifference equations."""

    def column(s, coin):
        win = {0: payoff * s if coin == 0 else -s, 1: -s if coin == 0 else s}
        return ("move", 1, f"col{s}", {a: ("end", [win[a], -win[a]]) for a in col_actions})

    def row(s):
        info = None if row_info is None else f"{row_info}{s}"
        return ("move", 0, info, {c: column(s, c) for c in (0, 1)})

    return TreeGame(("chance", [(0, 1 - prob, row(1)), (1, prob, row(2))]))


def test_import_of_a_hand_made_pyspiel_like_game_has_the_closed_form_value():
    game = bluff.from_openspiel(pennies())
    assert game.num_nodes == 1 + 2 * (1 + 2 * 3)
    assert game.num_infosets == (2, 2)
    # 3/4 * 1/5 + 1/4 * 2/5, exactly.
    assert bluff.solve(game, algo="lp").value == Fraction(1, 4)


def test_a_general_sum_declaration_with_constant_sum_returns_imports_as_constant_sum():
    """OpenSpiel's declaration is not trusted either way: a game declared general-sum whose
    returns all sum exactly to one constant is imported (with a warning) in its own payoffs;
    one whose sums differ is refused, naming the first terminal that breaks it."""
    zero_sum = pennies()
    shifted = pennies()

    def shift(node):
        # Every terminal (a, b) becomes (a + 3, b + 1): constant sum 4.
        if node[0] == "end":
            return ("end", [node[1][0] + 3, node[1][1] + 1])
        if node[0] == "chance":
            return ("chance", [(a, p, shift(c)) for a, p, c in node[1]])
        return (node[0], node[1], node[2], {a: shift(c) for a, c in node[3].items()})

    shifted = TreeGame(shift(zero_sum.root), utility="GENERAL_SUM")
    with pytest.warns(bluff.BluffWarning, match="declared general-sum.*sum exactly to 4"):
        game = bluff.from_openspiel(shifted)
    assert game.constant_sum == 4
    # Row's value in the game's own payoffs: 1/4 (the zero-sum value) + 3.
    assert bluff.solve(game, algo="lp").value == Fraction(13, 4)
    uneven = TreeGame(zero_sum.root, utility="GENERAL_SUM")
    uneven.root = shift(uneven.root)
    uneven.root[1][1][2][3][1][3][0] = ("end", [9, 9])
    imported = bluff.from_openspiel(uneven)
    assert imported.general_sum and imported.constant_sum is None
    # OpenSpiel's goofspiel with total points is declared general-sum, and is: a tie discards
    # the point card, so the totals differ. It imports as a general-sum game.
    og = pyspiel.load_game("goofspiel(num_cards=3,imp_info=True,returns_type=total_points)")
    assert bluff.from_openspiel(og).general_sum


def test_importer_refuses_inconsistent_or_broken_games():
    # Column's set "col1" has legal actions [0, 1] after heads and [0] after tails.
    broken = pennies()
    heads, tails = broken.root[1][0][2][3][0], broken.root[1][0][2][3][1]
    assert heads[2] == tails[2] == "col1"
    del tails[3][1]
    with pytest.raises(bluff.GameError, match=r'"col1".*legal actions \[0\] .* \[0, 1\]'):
        bluff.from_openspiel(broken)
    with pytest.raises(bluff.GameError, match="not finite"):
        bluff.from_openspiel(pennies(payoff=math.nan))
    with pytest.raises(bluff.GameError, match=r"\[0.6, 0.25\] sum to 0.85, not 1"):
        bluff.from_openspiel(_bad_chance())
    # A player reaching its own set again after one of its actions: refused by the builder
    # thread, naming the set.
    with pytest.raises(bluff.GameError, match="perfect recall"):
        bluff.from_openspiel(_forgetful())
    with pytest.raises(RuntimeError, match="no information state"):
        bluff.from_openspiel(pennies(row_info=None))
    weird = pennies()
    weird.root[1][0][2][3][0] = ("move", 7, "x", {0: ("end", [0, 0])})
    with pytest.raises(bluff.UnsupportedGameError, match="current player is 7"):
        bluff.from_openspiel(weird)
    # The import pauses Python's cyclic garbage collector and turns it back on, errors or not.
    assert gc.isenabled()


def _bad_chance():
    game = pennies()
    (a, _, x), (b, _, y) = game.root[1]
    game.root = ("chance", [(a, 0.6, x), (b, 0.25, y)])
    return game


def _forgetful():
    """Column moves twice, in one set whose second visit follows its own first move."""
    end = ("end", [1, -1])
    second = {a: ("move", 1, "again", {0: end, 1: end}) for a in (0, 1)}
    return TreeGame(("move", 1, "again", second))


@pytest.mark.usefixtures("ctrl_c_raises")
def test_keyboard_interrupt_stops_an_import():
    """Ctrl-C during a multi-million-node traversal raises KeyboardInterrupt promptly (the
    builder thread is told to stop, not left compiling a cut tree); importing works after."""
    og = pyspiel.load_game("goofspiel(num_cards=5,imp_info=True)")
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        bluff.from_openspiel(og, native=False)
    assert time.monotonic() - start < 10
    assert bluff.from_openspiel(pyspiel.load_game("kuhn_poker")).num_nodes == 58


@pytest.mark.usefixtures("ctrl_c_raises")
def test_keyboard_interrupt_during_a_native_build_is_raised_when_it_ends():
    """The native build runs without the GIL and cannot be cut short: Ctrl-C meanwhile raises
    KeyboardInterrupt as soon as it returns, not later in unrelated code."""
    og = pyspiel.load_game("goofspiel(num_cards=5,imp_info=True)")
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        bluff.from_openspiel(og, native=True)
        time.sleep(5)  # not reached when the interrupt is raised by from_openspiel itself
        pytest.fail("the interrupt was not raised by from_openspiel")


def python_import(og: pyspiel.Game) -> bluff.Game:
    """A second importer, written plainly in Python on bluff.GameBuilder (recursion is fine
    for these small trees)."""
    b = bluff.GameBuilder(str(og), players=("Player 0", "Player 1"))
    actions: dict[tuple[int, str], list[str]] = {}

    def labels(state, player, ids):
        names = [state.action_to_string(player, a) for a in ids]
        return names if len(set(names)) == len(names) else [f"{n} #{a}" for n, a in zip(names, ids)]

    def visit(state, node):
        if state.is_terminal():
            b.terminal(node, tuple(state.returns()))
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            ids = [a for a, _ in outcomes]
            names = labels(state, -1, ids)
            kids = b.chance(node, [(n, p) for n, (_, p) in zip(names, outcomes)])
            for a, kid in zip(ids, kids):
                visit(state.child(a), kid)
        else:
            player = state.current_player()
            info = state.information_state_string(player)
            ids = state.legal_actions()
            names = actions.setdefault((player, info), labels(state, player, ids))
            for a, kid in zip(ids, b.decision(node, player, info, names)):
                visit(state.child(a), kid)

    visit(og.new_initial_state(), b.root)
    return b.build()


@pytest.mark.parametrize(
    "name",
    GAMES[:4]
    + [
        "goofspiel(num_cards=3,imp_info=True)",
        "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,firstPlayer=1 1,"
        "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,raiseSize=2 4,maxRaises=2 2)",
    ],
)
def test_import_equals_a_plain_python_traversal(name, tmp_path):
    """The same .efg text (tree, labels, exact numbers) from both importers, by both of
    from_openspiel's routes (universal_poker has no built-in: the default route traverses)."""
    og = load(name)
    theirs = tmp_path / "python.efg"
    python_import(og).write_efg(theirs)
    for native in (None, False):
        ours = tmp_path / f"rust-{native}.efg"
        bluff.from_openspiel(og, native=native).write_efg(ours)
        assert ours.read_text() == theirs.read_text()


@pytest.mark.parametrize(
    "name", ["first_sealed_auction(max_value=3)", "sheriff(max_bribe=1,max_items=1)"]
)
def test_openspiel_general_sum_games_are_solved_exactly_by_the_lcp(name):
    """OpenSpiel's two-player general-sum games through `from_openspiel`: the LCP's certified
    equilibrium, played back in OpenSpiel, has OpenSpiel's values equal to bluff's and
    OpenSpiel's NashConv 0."""
    og = pyspiel.load_game(name)
    game = bluff.from_openspiel(og)
    assert game.general_sum
    r = bluff.solve(game, algo="lcp")
    assert r.nash_conv == 0 and isinstance(r.value, Fraction)
    tab = r.policy.to_openspiel(og)
    values = expected_game_score.policy_value(og.new_initial_state(), [tab, tab])
    assert abs(values[0] - float(r.value)) < 1e-12
    assert abs(values[1] - float(r.value_p2)) < 1e-12
    assert os_exploitability.nash_conv(og, tab) < 1e-12
