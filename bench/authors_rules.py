"""The CFR variants as their authors' public code runs them, re-implemented independently on
OpenSpiel's own games, beside bluff's figure for the same run: exploitability (OpenSpiel's,
NashConv / 2) of the average strategy after N iterations.

usage: python3 bench/authors_rules.py BLUFF GAME N[,N...] ALGO[,ALGO...] [--perturb K]

The rules (github.com/rpSebastian/PDCFRPlus `pdcfrplus/cfr/*.py`, github.com/rpSebastian/DDCFR
`ddcfr/cfr/*.py`): alternating updates, player 0 first, player 1 against player 0's new
strategy; at iteration t the previous cumulative regret is discounted, then the instantaneous
regret added; the average is `S_t = S_{t-1} ((t-1)/t)^gamma + own reach * sigma_t` from t = 1.
hs-* follow bluff's reading of Zhang, McAleer and Sandholm (no authors' code is public); the
revised names (hs-dcfr-30, hs-dcfr-15, hs-pcfr+-15, hs-pdcfr+-30, hs-pdcfr+-15) their v2 text
as the issue quotes it; sapcfr+ a public C++ reading of arXiv 2503.12770 (prediction / 3);
vad-cfr Listing 5 of arXiv 2602.16928 (the authors' evolved source) with one moving average per
information set and the listing's 0-based iteration number (docs/cfr-variants.md says why).

`--perturb K` reruns each fixed-parameter algorithm K times with every payoff multiplied by
`1 + k 1e-13` (k = 0..K-1): the spread is what floating-point rounding alone does to the figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field

import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability


@dataclass
class Node:
    """A history: terminal (payoff to player 0), chance, or a decision of `player` at `key`."""

    kind: str
    value: float = 0.0
    player: int = -1
    key: str = ""
    children: list[Node] = field(default_factory=list)
    probs: list[float] = field(default_factory=list)


def build(state: pyspiel.State, sets: dict[str, tuple[int, list[int]]], scale: float) -> Node:
    """The game tree below `state`; records each information set's player and actions."""
    if state.is_terminal():
        return Node("t", value=state.returns()[0] * scale)
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        return Node(
            "c",
            children=[build(state.child(a), sets, scale) for a, _ in outcomes],
            probs=[p for _, p in outcomes],
        )
    key = state.information_state_string()
    actions = state.legal_actions()
    sets.setdefault(key, (state.current_player(), actions))
    children = [build(state.child(a), sets, scale) for a in actions]
    return Node("d", player=state.current_player(), key=key, children=children)


def discount(s: float, exponent: float, offset: float = 1.0) -> float:
    """`s^e / (s^e + offset)`, 0 at s = 0 (nothing accumulated yet)."""
    if s <= 0:
        return 0.0
    x = s**exponent
    return x / (x + offset)


# name -> (rule, alpha, beta, gamma, offset of the regret discount)
ALGOS: dict[str, tuple[str, float, float, float, float]] = {
    "dcfr": ("dcfr", 1.5, 0.0, 2.0, 1.0),
    "pcfr+": ("pcfr+", 0.0, 0.0, 2.0, 1.0),
    "dcfr+": ("dcfr+", 1.5, 0.0, 4.0, 1.5),  # 1.5: the authors' dcfr_plus.py
    "pdcfr+": ("pdcfr+", 2.3, 0.0, 5.0, 1.0),
    "hs-dcfr": ("hs-dcfr", 0.0, 0.0, 30.0, 1.0),
    "hs-pcfr+": ("hs-pcfr+", 0.0, 0.0, 30.0, 1.0),
    "hs-dcfr-30": ("hs-dcfr", 0.0, 0.0, 30.0, 1.0),
    "hs-dcfr-15": ("hs-dcfr", 0.0, 0.0, 15.0, 1.0),
    "hs-pcfr+-30": ("hs-pcfr+", 0.0, 0.0, 30.0, 1.0),
    "hs-pcfr+-15": ("hs-pcfr+", 0.0, 0.0, 15.0, 1.0),
    "hs-pdcfr+-30": ("hs-pdcfr+", 2.3, 0.0, 30.0, 1.0),
    "hs-pdcfr+-15": ("hs-pdcfr+", 2.3, 0.0, 15.0, 1.0),
    "sapcfr+": ("sapcfr+", 0.0, 0.0, 2.0, 1.0),
    "vad-cfr": ("vad-cfr", 0.0, 0.0, 0.0, 1.0),
    # The listing's other reading: one moving average for all sets, in the update order.
    "vad-cfr-global": ("vad-cfr-global", 0.0, 0.0, 0.0, 1.0),
}


class Solver:
    """One run of one rule on one game."""

    def __init__(self, game: pyspiel.Game, name: str, horizon: int, scale: float = 1.0) -> None:
        self.sets: dict[str, tuple[int, list[int]]] = {}
        self.root = build(game.new_initial_state(), self.sets, scale)
        self.rule, self.alpha, self.beta, self.gamma, self.offset = ALGOS[name]
        self.horizon = horizon
        zeros = {k: [0.0] * len(a) for k, (_, a) in self.sets.items()}
        self.regret = {k: list(v) for k, v in zeros.items()}
        self.inst = {k: list(v) for k, v in zeros.items()}
        self.cum = {k: list(v) for k, v in zeros.items()}
        self.reach = {k: 0.0 for k in self.sets}
        self.sigma = {k: [1.0 / len(a)] * len(a) for k, (_, a) in self.sets.items()}
        self.ewma = {k: 0.0 for k in self.sets}
        self.t = 0

    def walk(self, n: Node, learner: int, mine: float, opp: float) -> float:
        """Value for `learner` below `n`; adds its counterfactual regrets and own reach."""
        if n.kind == "t":
            return n.value if learner == 0 else -n.value
        if n.kind == "c":
            return sum(
                p * self.walk(c, learner, mine, opp * p) for c, p in zip(n.children, n.probs)
            )
        sigma = self.sigma[n.key]
        if n.player != learner:
            return sum(p * self.walk(c, learner, mine, opp * p) for c, p in zip(n.children, sigma))
        values = [self.walk(c, learner, mine * p, opp) for c, p in zip(n.children, sigma)]
        v = sum(p * x for p, x in zip(sigma, values))
        inst = self.inst[n.key]
        for i, x in enumerate(values):
            inst[i] += opp * (x - v)
        self.reach[n.key] += mine
        return v

    def update_vad(self, k: str) -> None:
        """VAD-CFR at one information set (Listing 5): regrets, average, next strategy."""
        it = self.t - 1  # the listing's 0-based iteration_number
        r, inst, sigma, cum = self.regret[k], self.inst[k], self.sigma[k], self.cum[k]
        mag = max(abs(x) for x in inst)
        slot = "" if self.rule == "vad-cfr-global" else k
        ewma = mag if it == 0 else 0.1 * mag + 0.9 * self.ewma.get(slot, 0.0)
        self.ewma[slot] = ewma
        vol = min(1.0, ewma / 2.0)
        alpha = max(0.1, 1.5 - 0.5 * vol)
        beta = min(alpha, -0.1 - 0.5 * vol)
        tp = float(it + 1)
        pos, neg = tp**alpha / (tp**alpha + 1.0), tp**beta / (tp**beta + 1.0)
        if it >= 500:
            g = min(4.0, 2.0 + 1.5 * min(1.0, mag / 2.0))
            w = tp**g / (1.0 + mag**1.5) * max(0.1, (1.0 + mag / 2.0) ** 0.5)
            for i in range(len(cum)):
                cum[i] += w * self.reach[k] * sigma[i]
        boosted = [x * 1.1 if x > 0 else x for x in inst]
        for i in range(len(r)):
            r[i] = max(-20.0, (pos if r[i] >= 0 else neg) * r[i] + boosted[i])
        strength = 1.0 / (1.0 + it / 100.0) * max(0.0, 1.0 - 0.5 * vol)
        proj = [(pos if r[i] >= 0 else neg) * r[i] + strength * boosted[i] for i in range(len(r))]
        scaled = [max(0.0, x) ** 1.5 for x in proj]
        total = sum(scaled)
        for i in range(len(sigma)):
            sigma[i] = scaled[i] / total if total > 0 else 1.0 / len(sigma)

    def update(self, k: str) -> None:
        """The set's regret, average and next strategy after iteration `self.t`."""
        if self.rule.startswith("vad-cfr"):
            return self.update_vad(k)
        t, r, inst, sigma = self.t, self.regret[k], self.inst[k], self.sigma[k]
        progress = (t - 1) / self.horizon
        if self.rule == "sapcfr+":
            for i in range(len(r)):
                r[i] = max(r[i] + inst[i], 0.0)
            pred = [max(r[i] + inst[i] / 3.0, 0.0) for i in range(len(r))]
        elif self.rule in ("pcfr+", "hs-pcfr+"):
            for i in range(len(r)):
                r[i] = max(r[i] + inst[i], 0.0)
            pred = [max(r[i] + inst[i], 0.0) for i in range(len(r))]
        elif self.rule == "dcfr+":
            w = discount(t - 1, self.alpha, self.offset)
            for i in range(len(r)):
                r[i] = max(r[i] * w + inst[i], 0.0)
            pred = list(r)
        elif self.rule in ("pdcfr+", "hs-pdcfr+"):
            w = discount(t - 1, self.alpha)
            for i in range(len(r)):
                r[i] = max(r[i] * w + inst[i], 0.0)
            w = discount(t, self.alpha)
            pred = [max(r[i] * w + inst[i], 0.0) for i in range(len(r))]
        else:
            alpha, beta = self.alpha, self.beta
            if self.rule == "hs-dcfr":
                alpha, beta = 1 + 3 * progress, -1 - 2 * progress
            for i in range(len(r)):
                r[i] = r[i] * discount(t - 1, alpha if r[i] > 0 else beta) + inst[i]
            pred = [max(x, 0.0) for x in r]
        gamma = self.gamma - (5 * progress if self.rule.startswith("hs-") else 0.0)
        factor = ((t - 1) / t) ** gamma
        cum = self.cum[k]
        for i in range(len(cum)):
            cum[i] = cum[i] * factor + self.reach[k] * sigma[i]
        total = sum(pred)
        for i in range(len(sigma)):
            sigma[i] = pred[i] / total if total > 0 else 1.0 / len(sigma)

    def iterate(self) -> None:
        """One iteration: player 0 learns, then player 1."""
        self.t += 1
        for p in range(2):
            mine = [k for k, (pl, _) in self.sets.items() if pl == p]
            for k in mine:
                self.inst[k] = [0.0] * len(self.inst[k])
                self.reach[k] = 0.0
            self.walk(self.root, p, 1.0, 1.0)
            for k in mine:
                self.update(k)

    def exploitability(self, game: pyspiel.Game) -> float:
        """OpenSpiel's exploitability of the average strategy."""

        def average(state: pyspiel.State) -> dict[int, float]:
            key = state.information_state_string()
            cum, actions = self.cum[key], self.sets[key][1]
            total = sum(cum)
            return {a: (c / total if total > 0 else 1 / len(actions)) for a, c in zip(actions, cum)}

        return float(
            exploitability.exploitability(
                game, os_policy.tabular_policy_from_callable(game, average)
            )
        )


def run(game: pyspiel.Game, name: str, counts: list[int], scale: float = 1.0) -> list[float]:
    """Exploitability after each count (a fresh run per count for scheduled rules)."""
    if name.startswith("hs-"):
        out = []
        for n in counts:
            s = Solver(game, name, n, scale)
            for _ in range(n):
                s.iterate()
            out.append(s.exploitability(game))
        return out
    s = Solver(game, name, max(counts), scale)
    out = []
    for n in counts:
        while s.t < n:
            s.iterate()
        out.append(s.exploitability(game))
    return out


BLUFF_GAME = {"leduc_poker": "leduc", "liars_dice": "liars-dice(sides=4)", "kuhn_poker": "kuhn"}
OPENSPIEL_PARAMS = {"liars_dice": {"numdice": 1, "dice_sides": 4}}


def bluff(binary: str, game: str, algo: str, n: int) -> float:
    """bluff's exploitability after n iterations of `algo`."""
    out = subprocess.run(
        [
            binary,
            "solve",
            BLUFF_GAME[game],
            "--algo",
            algo,
            "--iterations",
            str(n),
            "--json",
            "--check-every",
            str(n),
            "--threads",
            "1",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(out)["exploitability"])


def main() -> None:
    binary, game_name = sys.argv[1], sys.argv[2]
    counts = [int(x) for x in sys.argv[3].split(",")]
    names = sys.argv[4].split(",")
    perturb = int(sys.argv[sys.argv.index("--perturb") + 1]) if "--perturb" in sys.argv else 0
    game = pyspiel.load_game(game_name, OPENSPIEL_PARAMS.get(game_name, {}))
    print("| game | algo | iterations | authors' rule (Python, OpenSpiel) | bluff | ratio |")
    print("|---|---|---|---|---|---|")
    for name in names:
        ours = run(game, name, counts)
        for n, e in zip(counts, ours):
            # bluff has one reading of VAD-CFR: the other is printed beside it.
            b = bluff(binary, game_name, "vad-cfr" if name == "vad-cfr-global" else name, n)
            print(f"| {game_name} | {name} | {n} | {e:.4e} | {b:.4e} | {b / e:.3f} |", flush=True)
        if perturb and not name.startswith("hs-"):
            spread = [run(game, name, counts[-1:], 1 + k * 1e-13)[0] for k in range(perturb)]
            print(
                f"| {game_name} | {name} | {counts[-1]} | payoffs x (1 + k 1e-13), k < {perturb}:"
                f" {min(spread):.4e} .. {max(spread):.4e} | | |",
                flush=True,
            )


if __name__ == "__main__":
    main()
