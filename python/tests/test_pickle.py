"""Games, policies and results pickle (Ray moves them between processes): round trips give
equal objects, and a game's round trip solves to the same bits."""

from __future__ import annotations

import pickle

import bluff


def pennies() -> bluff.Game:
    b = bluff.GameBuilder("pennies", players=("Ann", "Bob"))
    heads, tails = b.decision(0, 0, "x", ["H", "T"])
    for node, sign in [(heads, 1), (tails, -1)]:
        h, t = b.decision(node, 1, "y", ["H", "T"])
        b.terminal(h, sign)
        b.terminal(t, -sign)
    return b.build()


def test_games_pickle_by_spec_or_efg_and_solve_the_same() -> None:
    for game in [bluff.game("leduc"), bluff.game("liars-dice(sides=3)"), pennies()]:
        back = pickle.loads(pickle.dumps(game))
        assert back.name == game.name and back.players == game.players
        assert back.num_nodes == game.num_nodes
        for p in (0, 1):
            assert back.action_labels(p) == game.action_labels(p)
        a = bluff.solve(game, algo="cfr+", iterations=30)
        b = bluff.solve(back, algo="cfr+", iterations=30)
        assert a.policy == b.policy


def test_results_and_policies_round_trip() -> None:
    game = bluff.game("kuhn")
    for result in [
        bluff.solve(game, algo="dcfr", iterations=50),
        bluff.solve(game, algo="lp"),
    ]:
        back = pickle.loads(pickle.dumps(result))
        assert back.policy == result.policy
        assert back.exploitability == result.exploitability and back.value == result.value
        assert back.curve == result.curve and back.algo == result.algo
        assert back.iterations == result.iterations and back.stats == result.stats
        assert (back.current_policy is None) == (result.current_policy is None)
    uniform = bluff.Policy.uniform(game)
    assert pickle.loads(pickle.dumps(uniform)) == uniform
    assert uniform != bluff.solve(game, algo="cfr", iterations=5).policy


def test_a_rules_result_round_trips() -> None:
    """What bluff.solve_rules and solve_sharded(result="rules") return pickles field by field."""
    result = bluff.solve_rules("kuhn", iterations=300, seed=2)
    back = pickle.loads(pickle.dumps(result))
    assert back.policy == result.policy and back.exploitability == result.exploitability
    assert back.algo == result.algo and back.iterations == result.iterations
    assert back.seconds == result.seconds and back.stats == result.stats
    assert repr(back) == repr(result)
