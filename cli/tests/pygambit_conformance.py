"""Conformance helper for tests/efg_pygambit.rs: pygambit reads bluff's .efg files, writes them
back, solves them with its exact LP, and writes its own games (catalog and built here) for bluff
to read. Prints one JSON document on stdout.

usage: python pygambit_conformance.py OUT_DIR [bluff_file.efg ...]
"""
import decimal
import json
import os
import sys

import pygambit as gbt


def count_nodes(node):
    return 1 + sum(count_nodes(c) for c in node.children)


def describe(g, solve):
    rec = {
        "nodes": count_nodes(g.root),
        "players": len(g.players),
        "infosets": [len(p.infosets) for p in g.players],
        "const_sum": bool(g.is_const_sum),
        "perfect_recall": bool(g.is_perfect_recall),
    }
    if solve and len(g.players) == 2 and g.is_const_sum and g.is_perfect_recall:
        eq = gbt.nash.lp_solve(g, rational=True).equilibria[0]
        # pygambit 16.5+ indexes `g.players` by label only; iterate instead.
        rec["value"] = str(eq.payoff(list(g.players)[0]))
        # strategy[player][k] = probabilities of the k-th set's actions, in action order; Gambit
        # writes the k-th set of a player with id k + 1.
        rec["strategy"] = [
            [[str(eq[a]) for a in infoset.actions] for infoset in player.infosets]
            for player in g.players
        ]
    return rec


def built_game():
    """A game exercising inner-node outcomes, shared sets, fractions and decimals."""
    g = gbt.Game.new_tree(players=["Row", "Col"], title="Built by pygambit")
    g.append_move(g.root, g.players.chance, ["a", "b"])
    g.set_chance_probs(g.root.infoset, [gbt.Rational(1, 3), gbt.Rational(2, 3)])
    # pygambit 16.7 no longer indexes children by position: iterate.
    first, second = list(g.root.children)
    g.append_move([first, second], "Row", ["x", "y"])
    leaves = [c for n in (first, second) for c in n.children]
    g.append_move(leaves, "Col", ["l", "r"])
    g.set_outcome(first, g.add_outcome("bonus", [1, -1]))
    pays = [3, -1, gbt.Rational(-5, 2), 2, -2, 1, decimal.Decimal("0.5"), -3]
    k = 0
    for n in leaves:
        for leaf in n.children:
            g.set_outcome(leaf, g.add_outcome(f"o{k}", [pays[k], -pays[k]]))
            k += 1
    return g


def main():
    out_dir = sys.argv[1]
    result = {"version": gbt.__version__, "ours": [], "gambit": []}
    for path in sys.argv[2:]:
        g = gbt.read_efg(path)
        back = os.path.join(out_dir, os.path.basename(path) + ".gambit.efg")
        g.to_efg(back)
        rec = describe(g, solve=True)
        rec.update({"file": path, "rewritten": back})
        result["ours"].append(rec)
    games = [("built", built_game())]
    try:
        slugs = list(gbt.catalog.games(n_players=2, is_tree=True)["Game"])
    except Exception as exc:  # an older pygambit without the catalog
        print(f"no catalog: {exc}", file=sys.stderr)
        slugs = []
    for slug in slugs:
        games.append((slug, gbt.catalog.load(slug)))
    for name, g in games:
        path = os.path.join(out_dir, name.replace("/", "_") + ".efg")
        g.to_efg(path)
        rec = describe(g, solve=True)
        rec.update({"name": name, "file": path})
        result["gambit"].append(rec)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
