#!/usr/bin/env python3
"""gambitproject/lemke's test games through bluff, checked by lemke's own Lemke code and pygambit.

Usage: lemke_games.py BLUFF_BIN LEMKE_SNAPSHOT OUT_DIR

LEMKE_SNAPSHOT is a checkout of gambitproject/lemke or its git directory (its HEAD's src/ and
tests/ are extracted to a temporary directory and imported from there: GPL-3.0, run beside bluff,
never copied into it). lemke needs numpy, click and matplotlib.

- tests/fixtures/bimatrix/*: the game is written as an .nfg (a temporary file); `bluff
  normal-form --all` gives every extreme equilibrium, which must equal pygambit's
  `enummixed_solve(rational=True)`; every equilibrium lemke's Lemke-Howson finds from each
  dropped label, and its tracing procedure from the uniform prior, must be one of bluff's; bluff's
  `solve --algo lcp` equilibrium is confirmed by pygambit (scripts/gambit_confirm.py).
- tests/fixtures/efg/*: `bluff solve --algo lcp`, confirmed by pygambit as in the Gambit sweep;
  lemke's sequence-form Lemke (tests/sequence_form_helper.py) is run too and its equilibrium's
  regrets (exact best-response walk) and payoffs are reported beside bluff's.

Writes OUT_DIR/lemke_games.json and prints a Markdown table.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gambit_confirm as gc  # noqa: E402


def extract(snapshot: str, tmp: str) -> str:
    """A directory holding the snapshot's src/ and tests/."""
    if os.path.isdir(os.path.join(snapshot, "src", "lemke")):
        return snapshot
    root = os.path.join(tmp, "lemke")
    os.makedirs(root)
    archive = subprocess.run(
        ["git", f"--git-dir={snapshot}", "archive", "HEAD", "src", "tests"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", root], input=archive, check=True)
    return root


def write_nfg(a, b, path: str) -> None:
    """The bimatrix game (A, B) as a payoff-version .nfg (the row player's strategy fastest)."""
    m, n = a.shape
    pays = []
    for j in range(n):
        for i in range(m):
            pays += [str(Fraction(a[i][j])), str(Fraction(b[i][j]))]
    rows = " ".join(f'"r{i + 1}"' for i in range(m))
    cols = " ".join(f'"c{j + 1}"' for j in range(n))
    with open(path, "w") as f:
        f.write(f'NFG 1 R "lemke fixture" {{ "1" "2" }}\n{{ {{ {rows} }} {{ {cols} }} }}\n\n')
        f.write(" ".join(pays) + "\n")


def bimatrix_row(bluff: str, path: str, name: str, work: str) -> dict:
    """One bimatrix fixture: bluff's sets against pygambit's, lemke's equilibria among bluff's."""
    from lemke.bimatrix import bimatrix, uniform

    game = bimatrix.from_file(path)
    m, n = game.A.numrows, game.A.numcolumns
    nfg = os.path.join(work, name + ".nfg")
    write_nfg(game.A.matrix, game.B.matrix, nfg)
    rec = gc.check_file(bluff, nfg, work, 60.0, 100_000)
    ours = {tuple(Fraction(v) for v in p1 + p2) for p1, p2 in rec.get("bluff_equilibria", [])}
    with contextlib.redirect_stdout(io.StringIO()):
        found = set(game.LH(f"1-{m + n}"))
        found.add(game.runtrace(uniform(m), uniform(n)))
    lemke = {tuple(Fraction(v) for v in eq) for eq in found}
    rec.update(
        {
            "kind": "bimatrix",
            "size": f"{m}x{n}",
            "lemke_found": len(lemke),
            "lemke_in_bluff": lemke <= ours,
        }
    )
    rec["ok"] = bool(rec.get("confirmed") and rec.get("all_confirmed") and rec["lemke_in_bluff"])
    return rec


def efg_row(bluff: str, path: str, work: str) -> dict:
    """One .efg fixture: bluff's LCP confirmed by pygambit, lemke's sequence form beside it."""
    from tests.sequence_form_helper import solve_via_sequence_form

    rec = gc.check_file(bluff, path, work, 60.0, 100_000)
    rec["kind"] = "efg"
    game = gc.read_game(path)
    if len(game.players) == 2 and game.is_perfect_recall:
        with contextlib.redirect_stdout(io.StringIO()):
            x, y = solve_via_sequence_form(game)
        prof = game.mixed_behavior_profile([x, y], rational=True)
        rec["lemke_regrets"] = [str(r) for r in gc.regrets(game, prof)]
        rec["lemke_values"] = [str(prof.payoff(p)) for p in game.players]
        rec["same_values"] = [Fraction(v) for v in rec["lemke_values"]] == [
            Fraction(v) for v in rec.get("bluff_values", [])
        ]
    rec["ok"] = bool(rec.get("confirmed") or rec.get("refused_ok"))
    return rec


def main() -> None:
    bluff, snapshot, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = extract(snapshot, tmp)
        sys.path[:0] = [os.path.join(root, "src"), root]
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        fixtures = os.path.join(root, "tests", "fixtures")
        for name in sorted(os.listdir(os.path.join(fixtures, "bimatrix"))):
            rec = bimatrix_row(bluff, os.path.join(fixtures, "bimatrix", name), name, work)
            rec["name"] = f"bimatrix/{name}"
            rows.append(rec)
        for name in sorted(os.listdir(os.path.join(fixtures, "efg"))):
            rec = efg_row(bluff, os.path.join(fixtures, "efg", name), work)
            rec["name"] = f"efg/{name}"
            rows.append(rec)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "lemke_games.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("| game | bluff | pygambit | lemke |\n|---|---|---|---|")
    for r in rows:
        if r["kind"] == "bimatrix":
            k = len(r.get("bluff_equilibria", []))
            bluff_col = f"{k} extreme equilibri{'um' if k == 1 else 'a'}; LCP {r['solve']}"
            gambit = "same set; LCP's max_regret 0" if r["ok"] else "DIFFERS"
            lemke = f"{r['lemke_found']} found, " + (
                "all among bluff's" if r["lemke_in_bluff"] else "NOT all among bluff's"
            )
        elif "must_refuse" in r:
            bluff_col = f"refused: {r['must_refuse']}"
            gambit, lemke = "", ""
        else:
            bluff_col = f"LCP {r['solve']}: values {', '.join(r.get('bluff_values', []))}"
            gambit = "regret 0, same payoffs" if r.get("confirmed") else "NOT confirmed"
            lemke = ("regret 0, " if r["lemke_regrets"] == ["0", "0"] else "regret NOT 0, ") + (
                "same values" if r["same_values"] else f"values {', '.join(r['lemke_values'])}"
            )
        print(f"| {r['name']} | {bluff_col} | {gambit} | {lemke} |")
    print(f"\n{sum(r['ok'] for r in rows)} of {len(rows)} confirmed", file=sys.stderr)


if __name__ == "__main__":
    main()
