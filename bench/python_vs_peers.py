"""bluff from Python against LiteEFG 1.0.0 and OpenSpiel's C++ CFRPlusSolver, in one run.

Run through bench/python_vs_peers.sh (creates bench/.venv-py with the peers and bluff).

For every game: time to exploitability 1e-3 and 1e-5 (OpenSpiel's definition, NashConv / 2)
and iterations per second. Every solver is measured the same way: exploitability of the
averaged strategy is evaluated at iterations spaced at most 10% apart (at most 1000 apart),
and evaluation time is excluded; a time is the solve time at the first evaluation at or below
the target. Conversion (bluff.from_openspiel; LiteEFG's OpenSpielEnv) is shown separately and
included in the totals and ratios. Each solver run is capped at CAP seconds of solving; a cell
"> X" did not reach the target within the cap. bluff runs on one thread (LiteEFG and
OpenSpiel's CFRPlusSolver are single-threaded).

Usage: python python_vs_peers.py [--cap SECONDS] [--games NAME ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import time
from typing import Any, Callable

import pyspiel

import bluff

GAMES = [
    "kuhn_poker",
    "leduc_poker",
    "liars_dice(numdice=1,dice_sides=4)",
    "liars_dice(numdice=1,dice_sides=5)",
    "liars_dice(numdice=1,dice_sides=6)",
    "goofspiel(num_cards=4,imp_info=True)",
    "goofspiel(num_cards=5,imp_info=True)",
    # Limit hold'em shape on a small deck: 2 rounds, 2 suits x 4 ranks, one hole card, one
    # board card, raises of 2 then 4, at most 2 raises a round.
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,firstPlayer=1 1,"
    "numSuits=2,numRanks=4,numHoleCards=1,numBoardCards=0 1,raiseSize=2 4,maxRaises=2 2)",
]
TARGETS = (1e-3, 1e-5)


def turn_based(game: Any) -> Any:
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        return pyspiel.convert_to_turn_based(game)
    return game


def drive(step: Callable[[], None], measure: Callable[[], float], cap: float) -> dict[str, Any]:
    """Runs `step` until exploitability 1e-5 or `cap` seconds; the shared measuring protocol."""
    solve = 0.0
    iterations = 0
    next_check = 1
    reached: dict[float, float | None] = {t: None for t in TARGETS}
    last = math.inf
    while True:
        start = time.perf_counter()
        step()
        solve += time.perf_counter() - start
        iterations += 1
        if iterations >= next_check or solve >= cap:
            last = measure()
            for t in TARGETS:
                if reached[t] is None and last <= t:
                    reached[t] = solve
            next_check = iterations + min(max(iterations // 10, 1), 1000)
            if reached[TARGETS[-1]] is not None or solve >= cap:
                break
    return {
        "iterations": iterations,
        "seconds": solve,
        "it_per_s": iterations / solve,
        "exploitability": last,
        "reached": reached,
    }


def run_bluff(og: Any, algo: str, cap: float) -> dict[str, Any]:
    start = time.perf_counter()
    game = bluff.from_openspiel(og, progress=False)
    convert = time.perf_counter() - start
    result = bluff.solve(game, algo=algo, target=TARGETS[-1], time=cap, threads=1)
    reached: dict[float, float | None] = {t: None for t in TARGETS}
    for _iteration, expl, seconds in result.curve:
        for t in TARGETS:
            if reached[t] is None and expl <= t:
                reached[t] = seconds
    return {
        "convert": convert,
        "nodes": game.num_nodes,
        "infosets": sum(game.num_infosets),
        "iterations": result.iterations,
        "seconds": result.seconds,
        "it_per_s": result.iterations / max(result.seconds, 1e-12),
        "exploitability": result.exploitability,
        "reached": reached,
    }


def run_liteefg(og: Any, algo: str, cap: float) -> dict[str, Any]:
    import LiteEFG as leg
    from LiteEFG.baselines import DCFR, CFRplus

    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        start = time.perf_counter()
        graph = CFRplus.graph() if algo == "cfr+" else DCFR.graph()
        env = leg.OpenSpielEnv(og, traverse_type="Enumerate", regenerate=False)
        env.set_graph(graph)
        convert = time.perf_counter() - start
    if algo == "cfr+":
        strategy = graph.current_strategy()
        kind = "linear-avg-iterate"
    else:  # LiteEFG's DCFR keeps its own discounted average (its baseline's setting).
        strategy = graph.current_strategy("average-iterate")
        kind = "last-iterate"

    def step() -> None:
        graph.update_graph(env)
        env.update_strategy(strategy, update_best=False)

    def measure() -> float:
        return sum(env.exploitability(strategy, kind)) / 2

    out = drive(step, measure, cap)
    out["convert"] = convert
    return out


def run_openspiel(og: Any, cap: float) -> dict[str, Any]:
    solver = pyspiel.CFRPlusSolver(og)
    out = drive(
        solver.evaluate_and_update_policy,
        lambda: pyspiel.exploitability(og, solver.average_policy()),
        cap,
    )
    out["convert"] = 0.0
    return out


def total(r: dict[str, Any], target: float) -> float | None:
    t = r["reached"][target]
    return None if t is None else t + r["convert"]


def cell(r: dict[str, Any], target: float) -> str:
    t = total(r, target)
    return f"{t:.3g} s" if t is not None else f"> {r['seconds'] + r['convert']:.3g} s"


def ratio(peer: dict[str, Any], ours: dict[str, Any], target: float) -> str:
    a, b = total(peer, target), total(ours, target)
    if b is None:
        return "-"
    if a is None:
        return f"> {(peer['seconds'] + peer['convert']) / b:.0f}x"
    return f"{a / b:.0f}x" if a / b >= 10 else f"{a / b:.1f}x"


def python_traversal(og: Any) -> bluff.Game:
    """The alternative measured against bluff.from_openspiel: the same traversal in Python,
    feeding bluff.GameBuilder."""
    game = turn_based(og)
    b = bluff.GameBuilder(str(game), players=("Player 0", "Player 1"))
    stack = [(game.new_initial_state(), b.root)]
    known: dict[tuple[int, str], list[str]] = {}
    while stack:
        state, node = stack.pop()
        if state.is_terminal():
            b.terminal(node, tuple(state.returns()))
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            kids = b.chance(node, [(state.action_to_string(-1, a), p) for a, p in outcomes])
        else:
            player = state.current_player()
            label = state.information_state_string(player)
            actions = state.legal_actions()
            names = known.get((player, label))
            if names is None:
                names = [state.action_to_string(player, a) for a in actions]
                known[(player, label)] = names
            kids = b.decision(node, player, label, names)
        for a, kid in zip(reversed(actions), reversed(kids)):
            stack.append((state.child(a), kid))
    return b.build()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cap", type=float, default=60.0, help="solve seconds per run")
    parser.add_argument("--games", nargs="*", default=GAMES)
    parser.add_argument("--json", help="also write the raw measurements here")
    args = parser.parse_args()
    os.chdir(os.environ.get("TMPDIR", "/tmp"))  # LiteEFG writes game instance files here.

    print("## Conversion: Rust traversal (bluff.from_openspiel) vs a Python loop on GameBuilder")
    print("| game | nodes | Rust traversal | Python traversal | Python / Rust |")
    print("|---|---|---|---|---|")
    bluff.from_openspiel(pyspiel.load_game("kuhn_poker"), progress=False)  # one-time set-up
    python_traversal(pyspiel.load_game("kuhn_poker"))
    for name in args.games[:4]:
        og = turn_based(pyspiel.load_game(name))
        t0 = time.perf_counter()
        g = bluff.from_openspiel(og, progress=False)
        rust = time.perf_counter() - t0
        t0 = time.perf_counter()
        h = python_traversal(og)
        py = time.perf_counter() - t0
        assert (g.num_nodes, g.num_infosets) == (h.num_nodes, h.num_infosets)
        print(f"| {name} | {g.num_nodes} | {rust:.3f} s | {py:.3f} s | {py / rust:.2f}x |")
    sys.stdout.flush()

    rows = []
    raw = {}
    for name in args.games:
        og_raw = pyspiel.load_game(name)
        og = turn_based(og_raw)
        res = {
            "bluff dcfr": run_bluff(og_raw, "dcfr", args.cap),
            "bluff cfr+": run_bluff(og_raw, "cfr+", args.cap),
            "LiteEFG cfr+": run_liteefg(og, "cfr+", args.cap),
            "LiteEFG dcfr": run_liteefg(og, "dcfr", args.cap),
            "OpenSpiel cfr+": run_openspiel(og, args.cap),
        }
        raw[name] = res
        print(
            f"\n### {name}: {res['bluff dcfr']['nodes']} nodes, "
            f"{res['bluff dcfr']['infosets']} information sets",
            flush=True,
        )
        print("| solver | conversion | to 1e-3 (total) | to 1e-5 (total) | it/s | final expl |")
        print("|---|---|---|---|---|---|")
        for solver, r in res.items():
            print(
                f"| {solver} | {r['convert']:.3f} s | {cell(r, 1e-3)} | {cell(r, 1e-5)} | "
                f"{r['it_per_s']:.4g} | {r['exploitability']:.2e} |",
                flush=True,
            )
        best = min(
            (res["bluff dcfr"], res["bluff cfr+"]),
            key=lambda r: total(r, 1e-3) if total(r, 1e-3) is not None else math.inf,
        )
        lite = min(
            (res["LiteEFG cfr+"], res["LiteEFG dcfr"]),
            key=lambda r: total(r, 1e-3) if total(r, 1e-3) is not None else math.inf,
        )
        rows.append((name, best, lite, res["OpenSpiel cfr+"]))

    print("\n## Summary: best bluff variant vs best LiteEFG baseline and OpenSpiel CFR+")
    print(
        "| game | bluff to 1e-3 | LiteEFG to 1e-3 | OpenSpiel to 1e-3 | vs LiteEFG | vs OpenSpiel "
        "| bluff to 1e-5 | vs LiteEFG (1e-5) | vs OpenSpiel (1e-5) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, ours, lite, osp in rows:
        print(
            f"| {name.split('(')[0] if 'universal' in name else name} | {cell(ours, 1e-3)} | "
            f"{cell(lite, 1e-3)} | {cell(osp, 1e-3)} | {ratio(lite, ours, 1e-3)} | "
            f"{ratio(osp, ours, 1e-3)} | {cell(ours, 1e-5)} | {ratio(lite, ours, 1e-5)} | "
            f"{ratio(osp, ours, 1e-5)} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1, default=str)


if __name__ == "__main__":
    main()
