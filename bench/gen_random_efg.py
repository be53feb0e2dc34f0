#!/usr/bin/env python3
"""Writes a random two-player zero-sum .efg game with perfect recall to stdout.

Usage: gen_random_efg.py NODES [SEED]. A chance root deals one of 4 cards to each player; the
players then alternate with 2 or 3 actions until NODES nodes exist (give or take the open
branches, which end in terminals: within 0.01% for 1e6 nodes). A player's information
set is keyed by its card, its own earlier actions and the depth, so recall is perfect and sets
merge nodes across the opponent's card and moves. Payoffs are integers in [-4, 4].
"""

import sys


def main() -> None:
    nodes = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    state = seed

    def rnd(k: int) -> int:
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (state >> 33) % k

    # Deep enough for NODES nodes: 16 deals, then ~2.5 children per level of which 1 in 8 ends
    # early (from depth 2); the node budget then cuts the tree.
    depth = 1
    while 16 * 2.1 ** (depth + 1) < nodes:
        depth += 1
    out = sys.stdout
    w = out.write
    w('EFG 2 R "random" { "P1" "P2" }\n\n')
    w('c "" 1 "deal" {')
    for a in range(4):
        for b in range(4):
            w(f' "{a}{b}" 1/16')
    w(" } 0\n")
    ids: list[dict[str, int]] = [{}, {}]
    outcome = 0
    count = 1
    # Stack of (cards, own sequences, depth); children pushed in reverse for pre-order.
    stack = [((a, b), ("", ""), 0) for a in range(4) for b in range(4)][::-1]
    while stack:
        cards, seqs, d = stack.pop()
        count += 1
        if d >= depth or (d > 1 and rnd(8) == 0) or count > nodes:
            outcome += 1
            pay = rnd(9) - 4
            w(f't "" {outcome} "" {{ {pay}, {-pay} }}\n')
            continue
        p = d % 2
        key = f"{cards[p]}|{seqs[p]}|{d}"
        width = 2 + (hash_key(key) % 2)
        sets = ids[p]
        if key in sets:
            w(f'p "" {p + 1} {sets[key]} 0\n')
        else:
            sets[key] = len(sets) + 1
            acts = " ".join(f'"a{k}"' for k in range(width))
            w(f'p "" {p + 1} {sets[key]} "{key}" {{ {acts} }} 0\n')
        for k in reversed(range(width)):
            s = list(seqs)
            s[p] += str(k)
            stack.append((cards, (s[0], s[1]), d + 1))


def hash_key(key: str) -> int:
    """A stable hash (Python's own is salted per run)."""
    h = 0
    for c in key.encode():
        h = (h * 131 + c) % (1 << 32)
    return h


if __name__ == "__main__":
    main()
