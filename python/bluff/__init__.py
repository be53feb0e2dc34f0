"""bluff: Nash equilibria of two-player zero-sum games with hidden information.

The engine is the Rust crate `bluff` (the same code as the `bluff` command line), so Python and
the CLI give identical numbers. Typical use::

    import bluff, pyspiel
    game = bluff.from_openspiel(pyspiel.load_game("leduc_poker"))
    result = bluff.solve(game, algo="dcfr", target=1e-3)
    print(result.exploitability, bluff.solve(game, algo="lp").value)
"""

from bluff import holdem as holdem
from bluff._bluff import (
    BluffWarning,
    Evaluation,
    FormatError,
    Game,
    GameBuilder,
    GameError,
    HandError,
    NodePathError,
    Policy,
    PolicyError,
    RulesSolveResult,
    SolveResult,
    Spot,
    SpotError,
    SpotEvaluation,
    SpotNode,
    SpotResult,
    SpotStrategy,
    StrategyFileError,
    UnsupportedGameError,
    __version__,
    algorithms,
    best_response,
    builtin_games,
    evaluate,
    from_openspiel,
    game,
    read_efg,
    read_nfg,
    read_spot,
    read_strategy,
    solve,
    solve_rules,
)

__all__ = [
    "BluffWarning",
    "Evaluation",
    "FormatError",
    "Game",
    "GameBuilder",
    "GameError",
    "HandError",
    "NodePathError",
    "Policy",
    "PolicyError",
    "RulesSolveResult",
    "SolveResult",
    "Spot",
    "SpotError",
    "SpotEvaluation",
    "SpotNode",
    "SpotResult",
    "SpotStrategy",
    "StrategyFileError",
    "UnsupportedGameError",
    "__version__",
    "algorithms",
    "best_response",
    "builtin_games",
    "evaluate",
    "from_openspiel",
    "game",
    "read_efg",
    "read_nfg",
    "read_spot",
    "read_strategy",
    "solve",
    "solve_rules",
]
