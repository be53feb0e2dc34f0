"""Hold'em spots: a board, two weighted ranges, a pot, a stack and a bet-size tree.

The spot reader, solver, strategy files and evaluation are the library's (the same code as
``bluff solve SPOT.toml``, ``bluff eval`` and ``bluff export-strategy``). Typical use::

    import bluff
    spot = bluff.holdem.read("river.toml")  # or bluff.holdem.Spot(board=..., pot=..., ...)
    result = bluff.solve(spot, iterations=200)
    node = result.node("river:check")
    node.strategy  # numpy array [hands x actions]; node.hands, node.actions, node.player
    result.write_strategy("river.bin")
    strategy = bluff.holdem.read_strategy(spot, "river.bin")
    bluff.evaluate(spot, strategy, exact=True).exploitability  # a Fraction
"""

from bluff._bluff import (
    HandError,
    NodePathError,
    Spot,
    SpotError,
    SpotEvaluation,
    SpotNode,
    SpotResult,
    SpotStrategy,
    StrategyFileError,
    read_strategy,
)
from bluff._bluff import read_spot as read

__all__ = [
    "HandError",
    "NodePathError",
    "Spot",
    "SpotError",
    "SpotEvaluation",
    "SpotNode",
    "SpotResult",
    "SpotStrategy",
    "StrategyFileError",
    "read",
    "read_strategy",
]
