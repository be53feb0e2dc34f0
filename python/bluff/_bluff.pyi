import os
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias

__version__: str

#: A probability or payoff read exactly: Fraction, int, "p/q" or decimal string, or a float
#: (taken as the simplest fraction that rounds to it: 0.1 is 1/10).
Number: TypeAlias = Fraction | int | float | str
#: One player's strategy as {information set: {action: probability}}.
PlayerDict: TypeAlias = Mapping[str, Mapping[str, Number]]
Algo: TypeAlias = Literal[
    "dcfr",
    "cfr",
    "cfr+",
    "lcfr",
    "pcfr+",
    "dcfr+",
    "pdcfr+",
    "hs-dcfr",
    "hs-pcfr+",
    "lp",
    "sapcfr+",
    "vad-cfr",
    "hs-dcfr-30",
    "hs-dcfr-15",
    "hs-pcfr+-30",
    "hs-pcfr+-15",
    "hs-pdcfr+-30",
    "hs-pdcfr+-15",
    "es-mccfr",
    "os-mccfr",
]

class GameError(ValueError): ...
class UnsupportedGameError(GameError): ...
class FormatError(ValueError): ...
class PolicyError(ValueError): ...
class BluffWarning(UserWarning): ...

class Game:
    @property
    def spec(self) -> str | None: ...
    @property
    def name(self) -> str: ...
    @property
    def players(self) -> tuple[str, str]: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def num_terminals(self) -> int: ...
    @property
    def num_infosets(self) -> tuple[int, int]: ...
    @property
    def num_actions(self) -> tuple[int, int]: ...
    @property
    def num_sequences(self) -> tuple[int, int]: ...
    @property
    def constant_sum(self) -> Fraction | None: ...
    @property
    def general_sum(self) -> bool: ...
    @property
    def payoff_range(self) -> tuple[float, float]: ...
    def infosets(self, player: int) -> list[str]: ...
    def actions(self, player: int, infoset: str | int) -> list[str]: ...
    def action_labels(self, player: int) -> list[tuple[str, str]]: ...
    def write_efg(self, path: str | os.PathLike[str]) -> None: ...

class GameBuilder:
    def __init__(
        self, name: str = "game", players: tuple[str, str] = ("Player 1", "Player 2")
    ) -> None: ...
    @property
    def root(self) -> int: ...
    @property
    def num_nodes(self) -> int: ...
    def chance(
        self, node: int, outcomes: Mapping[str, Number] | Sequence[tuple[str, Number]]
    ) -> list[int]: ...
    def decision(
        self, node: int, player: int, infoset: str, actions: Sequence[str]
    ) -> list[int]: ...
    def terminal(self, node: int, payoffs: Number | Sequence[Number], label: str = "") -> None: ...
    def build(self) -> Game: ...

class Policy:
    @property
    def game(self) -> Game: ...
    @property
    def exact(self) -> bool: ...
    @staticmethod
    def uniform(game: Game) -> Policy: ...
    def probabilities(self, player: int, infoset: str | int) -> dict[str, float | Fraction]: ...
    def to_dict(self) -> list[dict[str, dict[str, float | Fraction]]]: ...
    @staticmethod
    def from_dict(game: Game, data: Sequence[PlayerDict], exact: bool = False) -> Policy: ...
    def to_numpy(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    @staticmethod
    def from_numpy(game: Game, arrays: Sequence[npt.ArrayLike]) -> Policy: ...
    def to_openspiel(self, pyspiel_game: Any) -> Any: ...
    @staticmethod
    def from_openspiel(game: Game, policy: Any) -> Policy: ...
    def write_json(self, path: str | os.PathLike[str]) -> None: ...
    @staticmethod
    def read_json(game: Game, path: str | os.PathLike[str]) -> Policy: ...

class Evaluation:
    value: tuple[float | Fraction, float | Fraction]
    best_response_value: tuple[float | Fraction, float | Fraction]
    nash_conv: float | Fraction
    exploitability: float | Fraction
    gain_p1: float | Fraction
    gain_p2: float | Fraction
    general_sum: bool
    exact: bool

class SolveResult:
    algo: str
    policy: Policy
    current_policy: Policy | None
    exploitability: float | Fraction
    nash_conv: float | Fraction
    value: float | Fraction
    value_p2: float | Fraction
    @property
    def values(self) -> tuple[float | Fraction, float | Fraction]: ...
    iterations: int
    team_iterations: int
    curve: list[tuple[int, float, float]]
    seconds: float
    setup_seconds: float
    wall_seconds: float
    stats: dict[str, Any] | None
    kernel: Literal["tree", "sequence"] | None

class _Shard:
    def __init__(
        self,
        game: Game | str,
        algo: str,
        shards: int,
        index: int,
        iterations: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        updates: Literal["simultaneous", "alternating"] | None = None,
        resume: str | os.PathLike[str] | None = None,
    ) -> None: ...
    def phases(self) -> int: ...
    def iterations(self) -> int: ...
    def sums_len(self, phase: int) -> int: ...
    def work(self) -> tuple[int, int, int, int]: ...
    def evaluate(self, phase: int) -> bytes: ...
    def fold(self, phase: int, cut: bytes, sums: bytes) -> bytes: ...
    def apply(self, phase: int, sums: bytes) -> None: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    def profiles(self) -> tuple[int, list[bytes]]: ...
    def keys(self) -> list[bytes] | None: ...
    def result(self, seconds: float) -> SolveResult: ...

_MAX_BUILT_IN_NODES: int

def _has_rules(spec: str) -> bool: ...
def _shard_result(
    game: Game, algo: str, iterations: int, profiles: Sequence[bytes], seconds: float
) -> SolveResult: ...
def _shard_rules_result(
    spec: str,
    algo: str,
    iterations: int,
    profiles: Sequence[bytes],
    keys: Sequence[bytes],
    seconds: float,
    evaluate: bool = True,
    threads: int | None = None,
) -> RulesSolveResult: ...

class RulesSolveResult:
    algo: str
    policy: list[dict[str, list[float]]]
    exploitability: float | None
    iterations: int
    seconds: float
    stats: dict[str, Any]

def _unpickle_rules_result(
    algo: str,
    policy: list[dict[str, list[float]]],
    exploitability: float | None,
    iterations: int,
    seconds: float,
    stats: dict[str, Any],
) -> RulesSolveResult: ...
def game(spec: str) -> Game: ...
def builtin_games() -> list[tuple[str, str]]: ...
def read_efg(path: str | os.PathLike[str]) -> Game: ...
def read_nfg(path: str | os.PathLike[str]) -> Game: ...
def from_openspiel(
    game: Any,
    max_nodes: int = 20_000_000,
    progress: bool | None = None,
    native: bool | None = None,
) -> Game: ...
@overload
def solve(
    game: Game,
    algo: Algo | None = None,
    iterations: int | None = None,
    target: float | None = None,
    time: float | None = None,
    threads: int | None = None,
    check_every: int | None = None,
    always_threads: bool = False,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    updates: Literal["simultaneous", "alternating"] | None = None,
    seed: int | None = None,
    kernel: Literal["tree", "sequence"] | None = None,
    epsilon: float | None = None,
    baseline: float | None = None,
    target_relative: float | None = None,
    rm_plus: bool = False,
    epoch: int | None = None,
    max_memory: int | None = None,
    lp_form: Literal["merged", "textbook"] | None = None,
    lp_primal: Literal["auto", "p1", "p2"] | None = None,
    lp_method: Literal["guided", "tableau"] | None = None,
    lcp_start: str | None = None,
    lock: str | os.PathLike[str] | Policy | dict[str, Any] | None = None,
    target_pot_pct: None = None,
    precision: None = None,
    compress: Literal[False] = False,
) -> SolveResult: ...
@overload
def solve(
    game: Spot,
    algo: Algo | None = None,
    iterations: int | None = None,
    target: float | None = None,
    time: float | None = None,
    threads: int | None = None,
    check_every: int | None = None,
    always_threads: bool = False,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    updates: Literal["simultaneous", "alternating"] | None = None,
    seed: None = None,
    kernel: None = None,
    epsilon: None = None,
    baseline: None = None,
    target_relative: None = None,
    rm_plus: bool = False,
    epoch: None = None,
    max_memory: int | None = None,
    lp_form: Literal["merged", "textbook"] | None = None,
    lp_primal: Literal["auto", "p1", "p2"] | None = None,
    lp_method: Literal["guided", "tableau"] | None = None,
    lcp_start: None = None,
    lock: None = None,
    target_pot_pct: float | None = None,
    precision: Literal["f32", "f64"] | None = None,
    compress: bool = False,
) -> SpotResult: ...
def algorithms() -> tuple[list[tuple[str, str]], str]: ...
def solve_rules(
    root: str | Any,
    algo: Literal["es-mccfr", "os-mccfr"] = "es-mccfr",
    iterations: int | None = None,
    time: float | None = None,
    seed: int | None = None,
    evaluate: bool = True,
    name: str | None = None,
    threads: int | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float | None = None,
    resume: str | os.PathLike[str] | None = None,
    native: bool | None = None,
    epsilon: float | None = None,
    baseline: float | None = None,
) -> RulesSolveResult: ...
@overload
def evaluate(
    game: Game, policy: Policy | Sequence[PlayerDict] | Any, exact: bool = False
) -> Evaluation: ...
@overload
def evaluate(
    game: Spot,
    policy: SpotStrategy | SpotResult | str | os.PathLike[str],
    exact: bool = False,
) -> SpotEvaluation: ...
def best_response(
    game: Game, policy: Policy | Sequence[PlayerDict] | Any, player: int
) -> Policy: ...
def _solve_checkpointed(
    game: Game,
    checkpoint: str | os.PathLike[str],
    upto: int,
    algo: Algo | None = None,
    iterations: int = 1,
    target: float | None = None,
    threads: int | None = None,
    check_every: int = 1000,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    updates: Literal["simultaneous", "alternating"] | None = None,
    checkpoint_seconds: float | None = None,
) -> SolveResult | None: ...
def _unpickle_game(kind: str, data: str) -> Game: ...
def _unpickle_policy(game: Game, kind: str, first: Any, second: Any) -> Policy: ...
def _unpickle_result(*fields: Any) -> SolveResult: ...

# Hold'em spots (`bluff.holdem`).

class SpotError(ValueError): ...
class NodePathError(SpotError): ...
class HandError(SpotError): ...
class StrategyFileError(ValueError): ...

class Spot:
    def __init__(self, **keys: str | float | bool | Sequence[str]) -> None: ...
    @staticmethod
    def from_toml(text: str, name: str | None = None) -> Spot: ...
    @property
    def text(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def board(self) -> str: ...
    @property
    def pot(self) -> int: ...
    @property
    def stack(self) -> int: ...

class SpotNode:
    @property
    def path(self) -> str: ...
    @property
    def player(self) -> Literal["oop", "ip"]: ...
    @property
    def actions(self) -> list[str]: ...
    @property
    def hands(self) -> list[str]: ...
    @property
    def strategy(self) -> npt.NDArray[np.float64]: ...
    @property
    def weights(self) -> npt.NDArray[np.float64]: ...
    @property
    def reach(self) -> npt.NDArray[np.float64]: ...
    @property
    def exact_strategy(self) -> list[list[Fraction]] | None: ...
    @property
    def frequencies(self) -> npt.NDArray[np.float64]: ...
    def hand(self, name: str) -> npt.NDArray[np.float64]: ...

class SpotStrategy:
    @property
    def spot(self) -> Spot: ...
    @property
    def algo(self) -> str: ...
    @property
    def iterations(self) -> int: ...
    @property
    def exploitability(self) -> float | None: ...
    def node(self, path: str) -> SpotNode: ...
    def paths(self) -> list[str]: ...
    def write(self, path: str | os.PathLike[str]) -> int: ...

class SpotResult:
    @property
    def algo(self) -> str: ...
    @property
    def exact(self) -> bool: ...
    @property
    def iterations(self) -> int: ...
    @property
    def exploitability(self) -> float | Fraction: ...
    @property
    def exploitability_pot_pct(self) -> float: ...
    @property
    def root_equity(self) -> tuple[float, float] | tuple[Fraction, Fraction]: ...
    @property
    def root_ev(self) -> tuple[float, float] | tuple[Fraction, Fraction]: ...
    @property
    def best_response(self) -> tuple[float, float] | None: ...
    @property
    def pot(self) -> float: ...
    @property
    def seconds(self) -> float: ...
    @property
    def build_seconds(self) -> float: ...
    @property
    def curve(self) -> list[tuple[int, float, float]]: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def strategy(self) -> SpotStrategy | None: ...
    def node(self, path: str) -> SpotNode: ...
    def write_strategy(self, path: str | os.PathLike[str]) -> int: ...

class SpotEvaluation:
    exact: bool
    exploitability: float | Fraction
    exploitability_pot_pct: float
    root_ev: tuple[float, float] | tuple[Fraction, Fraction]
    best_response_gain: tuple[float, float] | tuple[Fraction, Fraction]
    root_equity: tuple[float, float]
    float_exploitability: float
    pot: float

def read_spot(path: str | os.PathLike[str]) -> Spot: ...
def read_strategy(
    spot: Spot, path: str | os.PathLike[str], threads: int | None = None
) -> SpotStrategy: ...
