"""Prints OpenSpiel's figures that bluff's built-in liars-dice and goofspiel tests pin.

For each game: histories (chance, decision and terminal nodes), information sets per player,
and the exploitability of the uniform random policy. Goofspiel is OpenSpiel's imperfect-
information goofspiel made turn-based, as in the DCFR / DDCFR / PDCFR+ papers.

usage: python scripts/openspiel_game_counts.py   (needs open_spiel==2.0.2 installed)
"""

from __future__ import annotations

import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import exploitability


def count(game: pyspiel.Game) -> tuple[int, int, int]:
    """Histories and information sets per player, by an explicit-stack walk."""
    nodes = 0
    infosets: list[set[str]] = [set(), set()]
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        nodes += 1
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        infosets[player].add(state.information_state_string(player))
        stack.extend(state.child(a) for a in state.legal_actions())
    return nodes, len(infosets[0]), len(infosets[1])


def report(spec: str, game: pyspiel.Game, uniform: bool = True) -> None:
    nodes, sets0, sets1 = count(game)
    line = f"{spec}: {nodes} histories, {sets0} + {sets1} information sets"
    if uniform:
        expl = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
        line += f", uniform-policy exploitability {expl!r}"
    print(line, flush=True)


def main() -> None:
    report("kuhn", pyspiel.load_game("kuhn_poker"))
    report("leduc", pyspiel.load_game("leduc_poker"))
    for dice, sides in [(1, 2), (1, 3), (1, 4), (2, 2), (1, 5), (1, 6), (2, 3)]:
        game = pyspiel.load_game("liars_dice", {"numdice": dice, "dice_sides": sides})
        report(
            f"liars-dice(dice={dice},sides={sides})", game, uniform=sides <= 4 and dice * sides <= 4
        )
    for cards, order in [
        (3, "descending"),
        (3, "ascending"),
        (3, "random"),
        (4, "descending"),
        (4, "ascending"),
        (4, "random"),
        (5, "descending"),
        (5, "random"),
    ]:
        params = {"num_cards": cards, "imp_info": True, "points_order": order}
        game = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", params))
        report(
            f"goofspiel(cards={cards},order={order})", game, uniform=cards <= 4 or order != "random"
        )


if __name__ == "__main__":
    main()
