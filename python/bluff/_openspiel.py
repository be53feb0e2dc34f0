"""Policy conversions between bluff and OpenSpiel's ``TabularPolicy`` (needs ``open_spiel``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from bluff._bluff import Game, Policy, PolicyError


def _layout(game: Game, player: int) -> dict[str, tuple[int, int]]:
    """Information-set label -> (first flat action index, number of actions)."""
    out: dict[str, tuple[int, int]] = {}
    offset = 0
    for label in game.infosets(player):
        n = len(game.actions(player, label))
        out[label] = (offset, n)
        offset += n
    return out


def _turn_based(pyspiel_game: Any) -> Any:
    import pyspiel

    if pyspiel_game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        return pyspiel.convert_to_turn_based(pyspiel_game)
    return pyspiel_game


def to_tabular_policy(policy: Policy, pyspiel_game: Any) -> Any:
    """``policy`` as a ``TabularPolicy`` of ``pyspiel_game`` (see ``Policy.to_openspiel``)."""
    from open_spiel.python import policy as os_policy

    game = policy.game
    tabular = os_policy.TabularPolicy(_turn_based(pyspiel_game))
    arrays = policy.to_numpy()
    layouts = [_layout(game, 0), _layout(game, 1)]
    table = tabular.action_probability_array
    table[:] = 0.0
    for key, row in tabular.state_lookup.items():
        state = tabular.states[row]
        player = state.current_player()
        if player not in (0, 1) or key not in layouts[player]:
            raise PolicyError(
                f"OpenSpiel information state {key!r} of player {player} is not an "
                f"information set of {game.name!r}; was the bluff game imported from this "
                "pyspiel game with bluff.from_openspiel?"
            )
        offset, n = layouts[player][key]
        legal = state.legal_actions()
        if len(legal) != n:
            raise PolicyError(
                f"information set {key!r}: OpenSpiel has {len(legal)} legal actions, bluff has {n}"
            )
        table[row, legal] = arrays[player][offset : offset + n]
    return tabular


def from_openspiel_policy(game: Game, tabular: Any) -> Policy:
    """A bluff policy from an OpenSpiel ``TabularPolicy`` (see ``Policy.from_openspiel``)."""
    if not hasattr(tabular, "state_lookup") or not hasattr(tabular, "action_probability_array"):
        raise PolicyError(
            "expected an OpenSpiel TabularPolicy (with state_lookup and "
            f"action_probability_array), got {type(tabular).__name__}"
        )
    arrays = []
    for player in (0, 1):
        out = np.zeros(game.num_actions[player])
        for label, (offset, n) in _layout(game, player).items():
            row = tabular.state_lookup.get(label)
            if row is None:
                raise PolicyError(
                    f"information set {label!r} of player {player} is not in the OpenSpiel policy"
                )
            legal = tabular.states[row].legal_actions()
            if len(legal) != n:
                raise PolicyError(
                    f"information set {label!r}: OpenSpiel has {len(legal)} legal "
                    f"actions, bluff has {n}"
                )
            out[offset : offset + n] = tabular.action_probability_array[row, legal]
        arrays.append(out)
    return Policy.from_numpy(game, arrays)
