"""bluff: Nash equilibria of two-player zero-sum games with hidden information.

The engine is the Rust crate `bluff` (the same code as the `bluff` command line), so Python and
the CLI give identical numbers. Typical use::

    import bluff, pyspiel
    game = bluff.from_openspiel(pyspiel.load_game("leduc_poker"))
    result = bluff.solve(game, algo="dcfr", target=1e-3)
    print(result.exploitability, bluff.solve(game, algo="lp").value)
"""

from bluff._bluff import (
    BluffWarning,
    Evaluation,
    FormatError,
    Game,
    GameBuilder,
    GameError,
    Policy,
    PolicyError,
    RulesSolveResult,
    SolveResult,
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
    "Policy",
    "PolicyError",
    "RulesSolveResult",
    "SolveResult",
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
    "solve",
    "solve_rules",
]
