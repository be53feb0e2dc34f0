"""Confirms bluff's general-sum answers with pygambit, file by file.

For a Gambit file (.efg or .nfg) this module runs bluff the way a user would and checks its
answer with pygambit in exact rationals:

- `bluff solve FILE --algo lcp --json -o S.json`: the profile in bluff's strategy file is mapped
  onto Gambit's information sets (bluff names a set by its label when that label is unique and
  non-empty among its player's sets, else `label#ID` with ID the set's number in the file; actions
  keep their order); pygambit's payoffs on it must equal bluff's `value_p1` and `value_p2`, and
  each player's regret must be exactly 0: by pygambit's `max_regret()` (which runs over every
  pure strategy, so only up to MAX_REGRET_STRATEGIES of them) and, on trees, by an exact
  best-response walk of pygambit's tree written here (checked against `max_regret()` on the
  centroid, which is no equilibrium, wherever that runs) with pygambit's `agent_max_regret()`;
- for a two-player .nfg, `bluff normal-form FILE --all --json`: the set of extreme equilibria
  must equal `pygambit.nash.enummixed_solve(game, rational=True)`'s, as sets of exact vectors;
- a game with imperfect recall or other than two players: bluff must refuse it, saying why
  (its player count, or the set that breaks perfect recall).

Used by `cli/tests/gambit_general_sum.rs` (mode `ci`: pygambit's catalog and bluff's raked
games, in CI) and by `bench/gambit_sweep.py` (every file of a fetched Gambit snapshot). Gambit's
files are GPL: they are read from pygambit's installed package or from a fetched snapshot and
written to temporary files only, never copied into bluff.

usage: gambit_confirm.py ci BLUFF OUT_DIR     prints one JSON document of per-file records
       gambit_confirm.py file BLUFF FILE WORK_DIR CAP_SECONDS MAX_VERTICES
                                             prints one file's record (bench/gambit_sweep.py)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from fractions import Fraction
from importlib.resources import files
from typing import Any

import pygambit as gbt

REFUSED_READ = "was read but is outside what bluff's solvers take"


def run_bluff(bluff: str, args: list[str], cap: float | None) -> dict[str, Any]:
    """Runs bluff with `args`, stopped after `cap` seconds; returns code, outputs and time."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            [bluff, *args], capture_output=True, text=True, timeout=cap, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return {"timeout": True, "seconds": time.perf_counter() - t0}
    return {
        "timeout": False,
        "code": p.returncode,
        "stdout": p.stdout,
        "stderr": p.stderr.strip(),
        "seconds": time.perf_counter() - t0,
    }


def run_step(
    bluff: str, args: list[str], cap: float | None, step: str, error_key: str
) -> tuple[dict[str, Any], Any]:
    """Runs one bluff step of a file's check: its record (`STEP_seconds`; `STEP` "timeout" or
    "failed" with the last line of stderr under `error_key`) and its parsed JSON, `None` when
    it did not succeed."""
    r = run_bluff(bluff, args, cap)
    rec: dict[str, Any] = {f"{step}_seconds": round(r["seconds"], 3)}
    if r["timeout"]:
        rec[step] = "timeout"
        return rec, None
    if r["code"] != 0:
        rec[step] = "failed"
        rec[error_key] = r["stderr"].splitlines()[-1] if r["stderr"] else f"exit {r['code']}"
        return rec, None
    return rec, json.loads(r["stdout"])


def preorder(game: gbt.Game) -> list[Any]:
    """The game's nodes in the order a Gambit file lists them (depth first, children in order)."""
    out, stack = [], [game.root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(list(node.children)))
    return out


def tokens(text: str) -> list[tuple[str, str, int, int]]:
    """A Gambit file's tokens: ("s", text, start, end) for a quoted string, ("w", word, ...)
    otherwise, with the token's span in `text`."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            out.append(("s", "".join(buf), i, j + 1))
            i = j + 1
        elif c in "{},":
            out.append(("w", c, i, i + 1))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '{},"':
                j += 1
            out.append(("w", text[i:j], i, j))
            i = j
    return out


def record_starts(toks: list[tuple[str, str, int, int]]) -> list[int]:
    """Indices of the tokens that start node records: unquoted `p`, `c`, `t` (labels are quoted,
    payoffs are numbers)."""
    return [k for k, t in enumerate(toks) if t[0] == "w" and t[1] in ("p", "c", "t")]


def plain_labels(text: str) -> str:
    """The .efg text with plain labels, for pygambit 16.7, which refuses repeated node names or
    set labels and labels with two spaces or other characters: node names, set labels and outcome
    names emptied, actions named a1, a2, ... within each set. Same tree, numbers and payoffs."""
    toks = tokens(text)
    starts = record_starts(toks)
    if not starts:
        return text
    out, at, depth, k = [], 0, 0, 0
    for kind, word, start, end in toks[starts[0] :]:
        if kind == "w" and word == "{":
            depth, k = depth + 1, 0
        elif kind == "w" and word == "}":
            depth -= 1
        elif kind == "s":
            k += 1
            out += [text[at:start], f'"a{k}"' if depth else '""']
            at = end
    return "".join(out) + text[at:]


def file_infosets(text: str, game: gbt.Game) -> dict[tuple[int, int], tuple[int, str]]:
    """(player index, pygambit set number) -> (the set's number in the .efg file, its label there).

    Pygambit numbers a player's sets in order of first appearance; the file may use any numbers.
    The node records come in the same depth-first order as `preorder`. The label is the file's
    (pygambit may have read a copy with plain labels): the first one given for the set.
    """
    toks = tokens(text)
    records = record_starts(toks)
    nodes = preorder(game)
    if len(records) != len(nodes):
        raise ValueError(f"{len(records)} node records in the file, pygambit has {len(nodes)}")
    players = list(game.players)
    sets: dict[tuple[int, int], tuple[int, str]] = {}
    for k, node in zip(records, nodes):
        if toks[k][1] != "p":
            continue
        key = (players.index(node.player), node.infoset.number)
        label = toks[k + 4][1] if k + 4 < len(toks) and toks[k + 4][0] == "s" else None
        if key not in sets or (sets[key][1] is None and label is not None):
            sets[key] = (int(toks[k + 3][1]), label)
    return {key: (fid, label or "") for key, (fid, label) in sets.items()}


def bluff_set_names(sets: list[tuple[str, int]]) -> list[str]:
    """bluff's names for one player's sets, given (label, file id) pairs (its unique_set_labels)."""
    counts: dict[str, int] = {}
    for label, _ in sets:
        counts[label] = counts.get(label, 0) + 1
    unique = [bool(label) and counts[label] == 1 for label, _ in sets]
    used = {label for (label, _), u in zip(sets, unique) if u}
    names = []
    for (label, fid), u in zip(sets, unique):
        if u:
            names.append(label)
            continue
        name = f"{label}#{fid}"
        while name in used:
            name += "#"
        used.add(name)
        names.append(name)
    return names


def read_strategy_file(path: str) -> list[list[tuple[str, list[Fraction]]]]:
    """bluff's strategy file as players, in order: each a list of (set name, probabilities)."""
    with open(path) as f:
        doc = json.load(f, object_pairs_hook=list)
    strategy = dict(doc)["strategy"]
    return [
        [(name, [Fraction(v) for _, v in actions]) for name, actions in sets]
        for _, sets in strategy
    ]


def assign(prof: Any, items: list[Any], probs: list[Fraction], where: str, what: str) -> None:
    """Sets `prof[item]` to each probability exactly (`items`: a player's strategies or a
    set's actions, in order); a count that differs raises, naming `where`."""
    if len(probs) != len(items):
        raise ValueError(f"{where}: {len(probs)} probabilities, {len(items)} {what}")
    for item, v in zip(items, probs):
        prof[item] = gbt.Rational(v.numerator, v.denominator)


def gambit_profile(game: gbt.Game, text: str, strategy_path: str) -> Any:
    """The profile of bluff's strategy file as a pygambit rational profile of `game`."""
    ours = read_strategy_file(strategy_path)
    players = list(game.players)
    if len(ours) != len(players):
        raise ValueError(f"the strategy file has {len(ours)} players, the game {len(players)}")
    if not game.is_tree:
        # A strategic game: one set per player, its actions the player's strategies.
        prof = game.mixed_strategy_profile(rational=True)
        for p, player in enumerate(players):
            ((_, probs),) = ours[p]
            assign(prof, list(player.strategies), probs, f"player {p + 1}", "strategies")
        return prof
    file_sets = file_infosets(text, game)
    prof = game.mixed_behavior_profile(rational=True)
    for p, player in enumerate(players):
        sets = list(player.infosets)
        names = bluff_set_names([file_sets[(p, s.number)][::-1] for s in sets])
        by_name = dict(ours[p])
        if len(by_name) != len(sets):
            raise ValueError(
                f"player {p + 1}: {len(by_name)} sets in the file, {len(sets)} in Gambit"
            )
        for name, s in zip(names, sets):
            assign(prof, list(s.actions), by_name[name], f"set {name}", "actions")
    return prof


def exact(x: Any) -> Fraction:
    """A pygambit number (Rational, Decimal or int) as a Fraction."""
    return Fraction(str(x))


def best_response_value(game: gbt.Game, prof: Any, player: int) -> Fraction:
    """`player`'s exact best-response value against `prof` in a tree with perfect recall.

    Independent of bluff and of pygambit's regret: one walk of pygambit's tree collects, for
    every leaf, the other players' and chance's reach, the player's payoff (outcomes summed along
    the path) and the player's last own move (set, action); each own set gets the move before it.
    Then, children before parents, Q(I, a) = sum of the leaves whose last own move is (I, a) plus
    V(J) of the sets J whose last own move is (I, a), and V(I) = max over a of Q(I, a).
    """
    me = list(game.players)[player]
    leaf_sum: dict[Any, Fraction] = {}
    parent: dict[Any, Any] = {}
    order: list[Any] = []
    stack = [(game.root, Fraction(1), Fraction(0), None)]
    while stack:
        node, reach, pay, last = stack.pop()
        try:  # pygambit 16.7 raises KeyError for a node without an outcome
            pay += exact(node.outcome[me])
        except KeyError:
            pass
        children = list(node.children)
        if not children:
            leaf_sum[last] = leaf_sum.get(last, Fraction(0)) + reach * pay
            continue
        infoset = node.infoset
        actions = list(infoset.actions)
        mine = not infoset.is_chance and node.player == me
        if mine:
            key = (infoset.number,)
            if key not in parent:
                parent[key] = last
                order.append(key)
            elif parent[key] != last:
                raise ValueError("imperfect recall")
        for k, (a, child) in reversed(list(enumerate(zip(actions, children)))):
            if mine:
                stack.append((child, reach, pay, (infoset.number, k)))
            else:
                prob = exact(a.prob) if infoset.is_chance else exact(prof[a])
                if prob:
                    stack.append((child, reach * prob, pay, last))
    value: dict[Any, Fraction] = {}
    sets = {s.number: s for s in me.infosets}
    for key in reversed(order):
        q = [leaf_sum.get((key[0], k), Fraction(0)) for k in range(len(sets[key[0]].actions))]
        value[key] = max(q)
        up = parent[key]
        leaf_sum[up] = leaf_sum.get(up, Fraction(0)) + value[key]
    return leaf_sum.get(None, Fraction(0))


def regrets(game: gbt.Game, prof: Any) -> list[Fraction]:
    """Each player's exact regret (best-response value minus payoff) by `best_response_value`."""
    return [
        best_response_value(game, prof, i) - exact(prof.payoff(p))
        for i, p in enumerate(game.players)
    ]


# pygambit's `max_regret()` on a tree runs over every pure strategy of a player (about a minute
# at 1728 strategies): above this many, the exact best-response walk alone confirms.
MAX_REGRET_STRATEGIES = 512


# The largest reduced normal form (pure strategies of a player) the CI run enumerates.
MAX_REDUCED_STRATEGIES = 16


def pure_strategy_bound(game: gbt.Game) -> int:
    """The larger player's product of action counts over its sets (its pure strategies, at most)."""
    best = 0
    for player in game.players:
        n = 1
        for s in player.infosets:
            n *= len(s.actions)
        best = max(best, n)
    return best


def read_game(path: str) -> gbt.Game:
    """Pygambit's reading of a .efg or .nfg file."""
    return gbt.read_efg(path) if path.endswith(".efg") else gbt.read_nfg(path)


def classify_refusal(game: gbt.Game) -> str | None:
    """Why bluff must refuse the game (None when it must solve it)."""
    if len(game.players) != 2:
        return "players"
    if game.is_tree and not game.is_perfect_recall:
        return "imperfect recall"
    return None


def refusal_ok(why: str, stderr: str) -> bool:
    """Whether bluff's refusal message names the reason pygambit gives."""
    if REFUSED_READ not in stderr:
        return False
    if why == "players":
        return "player(s); bluff takes two-player games only" in stderr
    return "breaks perfect recall" in stderr


def confirm_solve(bluff: str, path: str, game: gbt.Game, text: str, work: str, cap: float):
    """`bluff solve --algo lcp` on `path`, its equilibrium checked by pygambit."""
    out = os.path.join(work, "strategy.json")
    if os.path.exists(out):
        os.remove(out)
    args = ["solve", path, "--algo", "lcp", "--json", "-o", out]
    rec, j = run_step(bluff, args, cap, "solve", "error")
    if j is None:
        return rec
    rec["solve"] = "solved"
    rec["bluff_values"] = [j["value_p1"]["exact"], j["value_p2"]["exact"]]
    rec["nash_conv"] = j["nash_conv"]
    prof = gambit_profile(game, text, out)
    rec["gambit_values"] = [str(prof.payoff(p)) for p in game.players]
    zero = True
    if not game.is_tree or pure_strategy_bound(game) <= MAX_REGRET_STRATEGIES:
        rec["max_regret"] = str(prof.max_regret())
        zero = rec["max_regret"] == "0"
        if game.is_tree:
            # The walk's regrets equal pygambit's max_regret on a profile that is no equilibrium.
            centroid = game.mixed_behavior_profile(rational=True)
            rec["centroid_agrees"] = max(regrets(game, centroid)) == exact(centroid.max_regret())
            zero = zero and rec["centroid_agrees"]
    if game.is_tree:
        rec["agent_max_regret"] = str(prof.agent_max_regret())
        rec["regrets"] = [str(x) for x in regrets(game, prof)]
        zero = zero and rec["regrets"] == ["0", "0"] and rec["agent_max_regret"] == "0"
    values = [Fraction(v) for v in rec["bluff_values"]]
    rec["confirmed"] = zero and values == [Fraction(v) for v in rec["gambit_values"]]
    return rec


def confirm_all(bluff: str, path: str, game: gbt.Game, cap: float, max_vertices: int):
    """`bluff normal-form --all` on `path` against pygambit's `enummixed_solve`."""
    args = ["normal-form", path, "--all", "--json", "--max-vertices", str(max_vertices)]
    rec, j = run_step(bluff, args, cap, "all", "all_error")
    if j is None:
        return rec

    def norm(v):
        return [str(Fraction(x)) for x in v]

    ours = [[norm(e["p1"]), norm(e["p2"])] for e in j["equilibria"]]
    players = list(game.players)
    listed = [
        [norm([str(eq[s]) for s in pl.strategies]) for pl in players]
        for eq in gbt.nash.enummixed_solve(game, rational=True).equilibria
    ]
    # enummixed lists a vertex pair of a degenerate game once per basis that reaches it: as sets.
    theirs = sorted({json.dumps(e): e for e in listed}.values())
    rec["gambit_listed"] = len(listed)
    ours = sorted(ours)
    rec["all"] = "done"
    rec["bluff_equilibria"] = ours
    rec["gambit_equilibria"] = theirs
    rec["all_confirmed"] = ours == theirs
    return rec


def check_file(
    bluff: str, path: str, work: str, cap: float = 60.0, max_vertices: int = 100_000
) -> dict[str, Any]:
    """Every check of one Gambit file; the record says what was done and what agreed."""
    rec: dict[str, Any] = {"file": path}
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        game = read_game(path)
    except Exception as exc:  # pygambit refuses it: bluff is still run on it
        game = None
        rec["gambit_error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if game is None and path.endswith(".efg") and "label" in rec["gambit_error"]:
        # pygambit 16.7 refuses some labels Gambit's format allows (repeated node names or set
        # labels, two spaces): it reads a copy with plain labels (`plain_labels`).
        copy = os.path.join(work, "plain_labels.efg")
        with open(copy, "w", encoding="utf-8") as f:
            f.write(plain_labels(text))
        try:
            game = read_game(copy)
            rec["gambit_read"] = "a copy with plain labels"
            del rec["gambit_error"]
        except Exception as exc:
            rec["gambit_error"] += f"; with plain labels: {str(exc).splitlines()[0]}"
    if game is not None:
        rec["players"] = len(game.players)
        rec["tree"] = bool(game.is_tree)
        rec["perfect_recall"] = bool(game.is_perfect_recall)
        rec["const_sum"] = bool(game.is_const_sum)
        why = classify_refusal(game)
        if why is not None:
            r = run_bluff(bluff, ["solve", path, "--algo", "lcp"], cap)
            rec["must_refuse"] = why
            rec["bluff_message"] = "timeout" if r["timeout"] else r["stderr"]
            rec["read"] = not r["timeout"] and REFUSED_READ in r["stderr"]
            rec["refused_ok"] = not r["timeout"] and r["code"] == 1 and refusal_ok(why, r["stderr"])
            return rec
    if game is None:
        r = run_bluff(bluff, ["solve", path, "--algo", "lcp"], cap)
        rec["bluff_message"] = "timeout" if r["timeout"] else r["stderr"]
        rec["read"] = not r["timeout"] and (r["code"] == 0 or REFUSED_READ in r["stderr"])
        return rec
    rec.update(confirm_solve(bluff, path, game, text, work, cap))
    # A run stopped at the cap had read the file (bluff reads before it solves).
    rec["read"] = rec["solve"] in ("solved", "timeout") or REFUSED_READ in rec.get("error", "")
    if not game.is_tree:
        rec.update(confirm_all(bluff, path, game, cap, max_vertices))
    return rec


def ci(bluff: str, out_dir: str) -> dict[str, Any]:
    """pygambit's catalog (every entry) and bluff's raked games, each file checked."""
    catalog = files("pygambit") / "catalog_data"
    result: dict[str, Any] = {"version": gbt.__version__, "files": []}
    work = os.path.join(out_dir, "work")
    os.makedirs(work, exist_ok=True)
    for slug in gbt.catalog.games()["Game"]:
        for ext in (".efg", ".nfg"):
            src = catalog / (slug + ext)
            if src.is_file():
                break
        else:
            raise FileNotFoundError(f"catalog entry {slug}: no .efg or .nfg")
        path = os.path.join(out_dir, slug.replace("/", "_") + ext)
        with src.open("rb") as f, open(path, "wb") as g:
            shutil.copyfileobj(f, g)
        rec = check_file(bluff, path, work)
        rec["name"] = slug
        result["files"].append(rec)
    # bluff's own raked games, as `bluff export` writes them.
    specs = [
        "kuhn(rake=0.05)",
        "one-card-poker(n=3,rake=0.1)",
        "one-card-poker(n=4,a=2,b=1,rake=0.05)",
        "one-card-poker(n=5,a=2,b=1,rake=0.05,rake_cap=0.2)",
    ]
    for spec in specs:
        path = os.path.join(out_dir, "".join(c if c.isalnum() else "_" for c in spec) + ".efg")
        export(bluff, spec, path)
        rec = check_file(bluff, path, work)
        rec["name"] = spec
        result["files"].append(rec)
    # bluff's reduced normal forms of the catalog's two-player trees it solved, where small.
    for rec in list(result["files"]):
        if not rec.get("tree") or rec.get("solve") != "solved" or rec["name"] in specs:
            continue
        path = rec["file"][: -len(".efg")] + ".reduced.nfg"
        export(bluff, rec["file"], path)
        if max(len(p.strategies) for p in gbt.read_nfg(path).players) > MAX_REDUCED_STRATEGIES:
            os.remove(path)
            continue
        nfg = check_file(bluff, path, work)
        nfg["name"] = rec["name"] + " (bluff's reduced normal form)"
        result["files"].append(nfg)
    return result


def export(bluff: str, game: str, path: str) -> None:
    """`bluff export GAME -o PATH` (the format from the extension); a failure raises."""
    r = run_bluff(bluff, ["export", game, "-o", path], None)
    if r["code"] != 0:
        raise RuntimeError(f"bluff export {game}: {r['stderr']}")


def main() -> None:
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "ci":
        json.dump(ci(args[1], args[2]), sys.stdout)
    elif len(args) == 6 and args[0] == "file":
        _, bluff, path, work, cap, max_vertices = args
        json.dump(check_file(bluff, path, work, float(cap), int(max_vertices)), sys.stdout)
    else:
        sys.exit(
            "usage: gambit_confirm.py ci BLUFF OUT_DIR\n"
            "       gambit_confirm.py file BLUFF FILE WORK_DIR CAP_SECONDS MAX_VERTICES"
        )


if __name__ == "__main__":
    main()
