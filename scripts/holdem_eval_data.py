"""Writes tests/data/holdem_eval_phevaluator.txt: random 7-card hands ranked by phevaluator.

Each line is `CARDS RANK CLASS`: seven cards written back to back (e.g. `As7d2c...`),
phevaluator's rank (1 = royal flush ... 7462 = the worst high card; lower wins) and the class
those ranks fall in (Cactus Kev's 7462 equivalence classes: 10 straight flushes, 156 quads,
156 full houses, 1277 flushes, 10 straights, 858 trips, 858 two pair, 2860 pairs, 1277 high
cards). tests/holdem_eval.rs checks that bluff's evaluator orders every pair of lines the same
way and gives the same class.

usage: python scripts/holdem_eval_data.py   (needs phevaluator==0.6.0 installed)
"""

from __future__ import annotations

import random
from pathlib import Path

from phevaluator import evaluate_cards

RANKS = "23456789TJQKA"
SUITS = "cdhs"
# (last rank of the class, class name), best class first.
CLASSES = [
    (10, "straight_flush"),
    (166, "quads"),
    (322, "full_house"),
    (1599, "flush"),
    (1609, "straight"),
    (2467, "trips"),
    (3325, "two_pair"),
    (6185, "pair"),
    (7462, "high_card"),
]
HANDS = 3000


def class_of(rank: int) -> str:
    """The class of a phevaluator rank."""
    for last, name in CLASSES:
        if rank <= last:
            return name
    raise ValueError(rank)


def main() -> None:
    """Draws the hands (fixed seed) and writes the file."""
    rng = random.Random(40)
    deck = [r + s for r in RANKS for s in SUITS]
    lines = []
    for i in range(HANDS):
        # A fifth of the hands come from a 20-card deck so that the strong classes and the
        # ties are well represented.
        pool = deck if i % 5 else [r + s for r in "TJQKA" for s in SUITS]
        cards = rng.sample(pool, 7)
        rank = evaluate_cards(*cards)
        lines.append(f"{''.join(cards)} {rank} {class_of(rank)}")
    out = Path(__file__).resolve().parent.parent / "tests" / "data" / "holdem_eval_phevaluator.txt"
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
