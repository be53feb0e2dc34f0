"""The Python API on its own: games, builder, solvers, policies, errors."""

from __future__ import annotations

import _thread
import json
import pathlib
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import bluff

# Player 1's exact value of Leduc poker (README; the CLI's `bluff solve leduc --algo lp`).
LEDUC_VALUE = Fraction(-1454920850547486749701863871533, 16995463438839962469905132501930)


def cli_lp_json(cli, spec: str) -> dict:
    out = subprocess.run(
        [str(cli), "solve", spec, "--algo", "lp", "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def cli_lp_value(cli, spec: str) -> Fraction:
    return Fraction(cli_lp_json(cli, spec)["value_p1"]["exact"])


def biased_pennies(low, high) -> bluff.Game:
    """Chance picks the stakes s (1 with probability `low`, 2 with `high`), then matching
    pennies where heads-heads pays Row 2s, tails-tails s and a mismatch -s; Column does not see
    Row's coin. By the indifference equations Row plays heads with 2/5 and the value is s/5."""
    b = bluff.GameBuilder("biased pennies", players=("Row", "Column"))
    stakes = b.chance(b.root, [("low", low), ("high", high)])
    for s, node in zip((1, 2), stakes):
        h, t = b.decision(node, 0, f"row {s}", ["H", "T"])
        for coin, child in (("H", h), ("T", t)):
            hh, tt = b.decision(child, 1, f"column {s}", ["H", "T"])
            if coin == "H":
                b.terminal(hh, (2 * s, -2 * s))
                b.terminal(tt, -s)
            else:
                b.terminal(hh, [Fraction(-s), s])
                b.terminal(tt, str(s))
    return b.build()


def test_builtin_games_and_labels():
    kuhn = bluff.game("kuhn")
    assert kuhn.num_nodes == 58
    assert kuhn.num_infosets == (6, 6)
    assert kuhn.num_sequences == (13, 13)
    assert kuhn.constant_sum == 0
    assert len(kuhn.action_labels(0)) == kuhn.num_actions[0]
    label = kuhn.infosets(0)[0]
    assert kuhn.actions(0, label) == kuhn.actions(0, 0)
    ocp = bluff.game("one-card-poker(n=5,a=2,b=1)")
    assert "one-card-poker" in ocp.name


def test_lp_values_equal_the_cli(cli):
    for spec in ["kuhn", "one-card-poker(n=5,a=2,b=1)", "baby-poker"]:
        result = bluff.solve(bluff.game(spec), algo="lp")
        assert isinstance(result.value, Fraction)
        cli_json = cli_lp_json(cli, spec)
        assert result.value == Fraction(cli_json["value_p1"]["exact"]), spec
        # The same library route certified it (the float basis rebuilt by reconstruction, or
        # the exact LU / tableau when that fails), with the same pivot counts.
        assert result.stats["exact_route"] == cli_json["exact_route"], spec
        assert result.stats["float_pivots"] == cli_json["float_pivots"], spec
        exact = bluff.evaluate(result.policy.game, result.policy, exact=True)
        assert exact.nash_conv == 0
        assert exact.value[0] == result.value
    assert bluff.solve(bluff.game("kuhn"), algo="lp").value == Fraction(-1, 18)


def test_lp_on_openspiel_leduc_equals_cli_leduc(cli, tmp_path):
    import pyspiel

    imported = bluff.from_openspiel(pyspiel.load_game("leduc_poker"))
    value = bluff.solve(imported, algo="lp").value
    assert value == LEDUC_VALUE
    # The CLI on the .efg export of the imported game finds the same exact value.
    path = tmp_path / "leduc_os.efg"
    imported.write_efg(path)
    assert cli_lp_value(cli, str(path)) == LEDUC_VALUE


def test_builder_game_closed_form_and_efg_round_trip(tmp_path, cli):
    game = biased_pennies("1/3", "2/3")
    # Stakes s: Row plays H with 2/5, value s/5; low (1/3) and high (2/3) stakes: 1/15 + 4/15.
    value = bluff.solve(game, algo="lp").value
    assert value == Fraction(1, 3)
    path = tmp_path / "pennies.efg"
    game.write_efg(path)
    back = bluff.read_efg(path)
    assert (back.num_nodes, back.num_infosets, back.players) == (
        game.num_nodes,
        game.num_infosets,
        ("Row", "Column"),
    )
    assert bluff.solve(back, algo="lp").value == value
    assert cli_lp_value(cli, str(path)) == value
    # Probabilities as floats (the simplest fraction that rounds to them) and Fractions.
    assert bluff.solve(biased_pennies(1 / 3, 2 / 3), algo="lp").value == value
    assert bluff.solve(biased_pennies(Fraction(1, 3), Fraction(2, 3)), algo="lp").value == value
    assert bluff.solve(biased_pennies(0, 1), algo="lp").value == Fraction(2, 5)


@pytest.mark.parametrize("algo", ["dcfr", "cfr", "cfr+", "lcfr", "pcfr+"])
def test_cfr_family_converges_on_kuhn(algo):
    result = bluff.solve(bluff.game("kuhn"), algo=algo, target=1e-3, threads=1)
    assert result.exploitability <= 1e-3
    assert abs(result.value + 1 / 18) < 1e-2
    assert result.curve[-1][0] == result.iterations
    assert result.curve[-1][1] == result.exploitability
    again = bluff.evaluate(bluff.game("kuhn"), result.policy)
    assert abs(again.exploitability - result.exploitability) < 1e-15


def test_threads_do_not_change_results():
    # 51 181 nodes: big enough for the team of threads (Leduc is solved on one).
    game = bluff.game("liars-dice(dice=1,sides=5)")
    one = bluff.solve(game, algo="dcfr", iterations=20, threads=1)
    two = bluff.solve(game, algo="dcfr", iterations=20, threads=2)
    for p in (0, 1):
        assert np.array_equal(one.policy.to_numpy()[p], two.policy.to_numpy()[p])
    assert one.team_iterations == 0
    # The team runs the first two iterations, then whichever of it and one thread is faster.
    assert 2 <= two.team_iterations <= 20
    always = bluff.solve(game, algo="dcfr", iterations=20, threads=2, always_threads=True)
    assert always.team_iterations == 20
    assert np.array_equal(one.policy.to_numpy()[0], always.policy.to_numpy()[0])
    small = bluff.solve(bluff.game("leduc"), algo="dcfr", iterations=5, threads=2)
    assert small.team_iterations == 0


def test_kernel_is_chosen_by_shape_or_asked_and_agrees():
    game = bluff.game("leduc")
    tree = bluff.solve(game, algo="cfr", iterations=30, threads=1)
    assert tree.kernel == "tree"
    seq = bluff.solve(game, algo="cfr", iterations=30, threads=1, kernel="sequence")
    assert seq.kernel == "sequence"
    assert abs(tree.exploitability - seq.exploitability) < 1e-9
    assert bluff.solve(game, algo="lp").kernel is None
    with pytest.raises(ValueError, match="kernel"):
        bluff.solve(game, iterations=3, kernel="gpu")
    with pytest.raises(ValueError, match="kernel="):
        bluff.solve(game, algo="lp", kernel="tree")


def test_policy_dict_and_numpy_round_trips():
    game = bluff.game("kuhn")
    result = bluff.solve(game, algo="lp")
    exact = result.policy.to_dict()
    assert all(isinstance(p, Fraction) for d in exact for a in d.values() for p in a.values())
    back = bluff.Policy.from_dict(game, exact, exact=True)
    assert back.exact and bluff.evaluate(game, back, exact=True).nash_conv == 0
    floats = bluff.Policy.from_dict(
        game,
        [{k: {a: float(p) for a, p in v.items()} for k, v in d.items()} for d in exact],
    )
    arrays = floats.to_numpy()
    again = bluff.Policy.from_numpy(game, arrays)
    assert np.array_equal(again.to_numpy()[0], arrays[0])
    label = game.infosets(1)[0]
    assert set(again.probabilities(1, label)) == set(game.actions(1, label))
    # evaluate() takes the plain dicts too.
    assert abs(bluff.evaluate(game, exact).exploitability) < 1e-15


@pytest.mark.usefixtures("ctrl_c_raises")
def test_keyboard_interrupt_stops_a_solve():
    game = bluff.game("leduc")
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        bluff.solve(game, algo="cfr", time=60.0, threads=1)
    assert time.monotonic() - start < 10


def test_a_solve_started_with_sigint_ignored_is_not_stopped_by_it():
    """A process started with SIGINT ignored (nohup, background jobs) keeps it ignored: the
    solve ends by its own stop rule, not by the signal."""
    code = (
        "import sys, bluff\n"
        "game = bluff.game('leduc')\n"
        "print('solving', flush=True)\n"
        "r = bluff.solve(game, algo='cfr', time=1.5, threads=1)\n"
        "print(r.iterations)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "solving\n"
    time.sleep(0.3)
    for _ in range(3):
        child.send_signal(signal.SIGINT)
        time.sleep(0.1)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert int(out) > 0
    assert "KeyboardInterrupt" not in err


def test_policy_json_files_round_trip_and_keep_their_mode(tmp_path, cli):
    game = bluff.game("kuhn")
    exact = bluff.solve(game, algo="lp").policy
    path = tmp_path / "kuhn.json"
    path.write_text("old")
    path.chmod(0o600)
    exact.write_json(path)
    assert path.stat().st_mode & 0o777 == 0o600
    again = bluff.Policy.read_json(game, path)
    assert again.exact and again.to_dict() == exact.to_dict()
    # The CLI reads it and finds the exact equilibrium (NashConv 0).
    out = subprocess.run(
        [str(cli), "eval", "kuhn", str(path), "--json"], check=True, capture_output=True, text=True
    ).stdout
    assert json.loads(out)["nash_conv"]["exact"] == "0"
    # A float policy writes numbers; a link stays a link; a device stays a device.
    floats = bluff.solve(game, algo="cfr+", iterations=50).policy
    link = tmp_path / "link.json"
    link.symlink_to("kuhn.json")
    floats.write_json(link)
    assert link.is_symlink()
    assert bluff.Policy.read_json(game, link).to_dict() != exact.to_dict()
    floats.write_json("/dev/null")
    assert pathlib.Path("/dev/null").is_char_device()
    with pytest.raises(OSError, match="a folder"):
        floats.write_json(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"strategy": {"P1": {}}}')
    with pytest.raises(bluff.PolicyError, match="bad.json"):
        bluff.Policy.read_json(game, bad)


def test_bad_builder_input_raises_value_errors():
    b = bluff.GameBuilder()
    with pytest.raises(bluff.GameError, match="sum to 1/2"):
        b.chance(b.root, [("a", "1/4"), ("b", 0.25)])
    with pytest.raises(ValueError, match="not a number"):
        b.chance(b.root, [("a", "half"), ("b", "1/2")])
    x, y = b.decision(b.root, 0, "root", ["x", "y"])
    b.decision(x, 1, "s", ["l", "r"])
    with pytest.raises(bluff.GameError, match='"s"'):
        b.decision(y, 1, "s", ["l", "m"])
    with pytest.raises(bluff.GameError, match="already has content"):
        b.terminal(x, 1)
    with pytest.raises(IndexError):
        b.terminal(999, 1)
    with pytest.raises(ValueError, match="player 2"):
        b.decision(y, 2, "t", ["a"])
    with pytest.raises(bluff.GameError, match="never given"):
        b.build()

    # Imperfect recall: player 0 forgets its own first move.
    b = bluff.GameBuilder()
    x, y = b.decision(b.root, 0, "first", ["x", "y"])
    for node in (x, y):
        a, c = b.decision(node, 0, "second", ["a", "c"])
        b.terminal(a, 1)
        b.terminal(c, 0)
    with pytest.raises(bluff.GameError, match="perfect recall"):
        b.build()

    # Not constant-sum: built as a two-player general-sum game.
    b = bluff.GameBuilder()
    x, y = b.decision(b.root, 0, "only", ["x", "y"])
    b.terminal(x, (1, -1))
    b.terminal(y, (1, 1))
    general = b.build()
    assert general.general_sum and general.constant_sum is None
    assert issubclass(bluff.GameError, ValueError)


def test_bad_files_and_policies_raise(tmp_path):
    bad = tmp_path / "bad.efg"
    bad.write_text('EFG 2 R "x" { "A" "B" }\n\np "" 1 1 "s" { "a" } 0\nt "" 1 "o" { 1 }\n')
    with pytest.raises(bluff.FormatError, match="line 4"):
        bluff.read_efg(bad)
    with pytest.raises(OSError):
        bluff.read_efg(tmp_path / "missing.efg")
    with pytest.raises(ValueError, match="read_efg"):
        bluff.game(str(bad))
    with pytest.raises(ValueError):
        bluff.game("no-such-game")
    game = bluff.game("kuhn")
    with pytest.raises(ValueError, match="algo"):
        bluff.solve(game, algo="fictitious-play", iterations=1)
    with pytest.raises(ValueError, match="stop rule"):
        bluff.solve(game, algo="cfr")
    with pytest.raises(ValueError, match="applies|apply"):
        bluff.solve(game, algo="lp", iterations=3)
    for algo in ("cfr", "lp"):
        with pytest.raises(ValueError, match="threads=1000000: expected at most"):
            bluff.solve(game, algo=algo, iterations=1 if algo == "cfr" else None, threads=10**6)
    uniform = bluff.Policy.uniform(game).to_dict()
    missing = [dict(uniform[0]), uniform[1]]
    del missing[0][game.infosets(0)[0]]
    with pytest.raises(bluff.PolicyError, match="missing"):
        bluff.evaluate(game, missing)
    wrong = [dict(uniform[0]), uniform[1]]
    label = game.infosets(0)[0]
    wrong[0][label] = {a: 0.9 for a in game.actions(0, label)}
    with pytest.raises(bluff.PolicyError, match="sum"):
        bluff.Policy.from_dict(game, wrong)
    with pytest.raises(bluff.PolicyError, match="entries"):
        bluff.Policy.from_numpy(game, [np.zeros(3), np.zeros(3)])
    with pytest.raises(bluff.PolicyError, match="different"):
        bluff.evaluate(bluff.game("leduc"), bluff.Policy.uniform(game))


@pytest.mark.parametrize(
    "algo",
    [
        "dcfr+",
        "pdcfr+",
        "hs-dcfr",
        "hs-pcfr+",
        "pcfr+",
        "sapcfr+",
        "vad-cfr",
        "hs-dcfr-15",
        "hs-pcfr+-15",
        "hs-pdcfr+-30",
    ],
)
def test_every_cfr_variant_matches_the_cli(cli, algo: str) -> None:
    """Python and the CLI run the same solver: after 200 iterations on Leduc the exploitability
    they report is the same number."""
    out = subprocess.run(
        [str(cli), "solve", "leduc", "--algo", algo, "--iterations", "200", "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    summary = json.loads(out)
    result = bluff.solve(bluff.game("leduc"), algo=algo, iterations=200)
    assert result.iterations == 200
    assert result.exploitability == pytest.approx(summary["exploitability"], rel=1e-12, abs=0)


def test_scheduled_variants_need_iterations() -> None:
    with pytest.raises(ValueError, match="iterations"):
        bluff.solve(bluff.game("kuhn"), algo="hs-dcfr", target=1e-3)


def test_stubs_declare_every_public_name_and_every_name_has_a_docstring():
    """python/bluff/_bluff.pyi lists exactly the extension's public functions, classes and
    members, and each of them has a docstring (from the Rust doc comments)."""
    import ast
    import inspect
    import pathlib

    stub = ast.parse((pathlib.Path(bluff.__file__).parent / "_bluff.pyi").read_text())
    declared: dict[str, set[str]] = {}
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            declared[node.name] = {
                n.name if isinstance(n, ast.FunctionDef) else n.target.id
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AnnAssign))
            }
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = set()
    errors = {"GameError", "UnsupportedGameError", "FormatError", "PolicyError", "BluffWarning"}
    public = [n for n in bluff.__all__ if not n.startswith("_")]
    # Private helpers (bluff.ray's) are typed too, but are no part of the public API.
    assert {n for n in declared if not n.startswith("_")} == set(public)
    for name in public:
        obj = getattr(bluff, name)
        assert obj.__doc__, name
        if inspect.isclass(obj) and name not in errors:
            members = {m for m in vars(obj) if not m.startswith("_")}
            assert members == declared[name] - {"__init__"}, name
            for m in members:
                assert getattr(obj, m).__doc__, f"{name}.{m}"


def test_sampling_solvers_are_seeded_and_scored_by_the_exact_best_response():
    """es-mccfr / os-mccfr (issue 28): the same seed gives the same policy, another seed
    another; the reported exploitability is bluff.evaluate's of the returned policy."""
    game = bluff.game("kuhn")
    a = bluff.solve(game, algo="es-mccfr", iterations=20_000, seed=4)
    b = bluff.solve(game, algo="es-mccfr", iterations=20_000, seed=4)
    c = bluff.solve(game, algo="es-mccfr", iterations=20_000, seed=5)
    assert a.exploitability == b.exploitability != c.exploitability
    assert a.exploitability == bluff.evaluate(game, a.policy).exploitability
    assert a.exploitability < 0.02
    assert a.iterations == 20_000 and a.stats["traversals"] == 40_000
    os_run = bluff.solve(game, algo="os-mccfr", iterations=20_000, seed=4)
    assert os_run.exploitability == bluff.evaluate(game, os_run.policy).exploitability
    with pytest.raises(ValueError, match="seed="):
        bluff.solve(game, algo="cfr", iterations=10, seed=1)


class _KuhnState:
    """Kuhn poker stated by its rules in Python (pyspiel's state protocol), as OpenSpiel deals
    it: player 0's card, then player 1's from the two left, in card order."""

    def __init__(self, cards=(), history=""):
        self.cards, self.history = tuple(cards), history

    def current_player(self):
        if len(self.cards) < 2:
            return -1
        if self.history in ("pp", "bp", "bb", "pbp", "pbb"):
            return -4
        return len(self.history) % 2

    def chance_outcomes(self):
        left = [c for c in range(3) if c not in self.cards]
        return [(c, Fraction(1, len(left))) for c in left]

    def legal_actions(self):
        return [0, 1]

    def child(self, action):
        if len(self.cards) < 2:
            return _KuhnState(self.cards + (action,), self.history)
        return _KuhnState(self.cards, self.history + "pb"[action])

    def information_state_string(self, player):
        return "JQK"[self.cards[player]] + self.history

    def returns(self):
        h = self.history
        if h in ("bp", "pbp"):  # a fold: the bettor wins the ante
            winner = 0 if h == "bp" else 1
            stake = 1
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
            stake = 2 if "b" in h else 1
        return [stake, -stake] if winner == 0 else [-stake, stake]


def test_a_game_stated_by_rules_in_python_plays_as_the_native_game():
    """bluff.solve_rules on a Python protocol class (issue 28): the same seed samples the same
    histories as the native arena, so the average strategy and its exploitability (here by the
    streaming best response over the Python rules, there by the arena's exact best response)
    agree, without enumerating the Python game."""
    for algo in ["es-mccfr", "os-mccfr"]:
        native = bluff.solve(bluff.game("kuhn"), algo=algo, iterations=3000, seed=11)
        ruled = bluff.solve_rules(_KuhnState(), algo=algo, iterations=3000, seed=11)
        assert ruled.iterations == 3000
        assert abs(ruled.exploitability - native.exploitability) < 1e-12, algo
        assert ruled.stats["infosets"] == (6, 6)
        # The policy by information-set string equals the arena policy's.
        native_dict = native.policy.to_dict()
        for p in range(2):
            for label, probs in ruled.policy[p].items():
                expected = [float(native_dict[p][label][a]) for a in ("Pass", "Bet")]
                assert probs == pytest.approx(expected, abs=1e-12), label


def test_a_pyspiel_game_plays_through_the_rules_protocol_without_enumeration():
    """Any pyspiel game is usable by the sampling solvers through its states (no enumeration):
    Kuhn from OpenSpiel gives the same figures as bluff's native Kuhn for the same seed."""
    import pyspiel  # installed by .ci/run: a missing prerequisite fails, never skips

    native = bluff.solve(bluff.game("kuhn"), algo="es-mccfr", iterations=2000, seed=5)
    game = pyspiel.load_game("kuhn_poker")
    ruled = bluff.solve_rules(game.new_initial_state(), iterations=2000, seed=5, native=False)
    assert abs(ruled.exploitability - native.exploitability) < 1e-12
    # A bigger game runs without building its tree; the streaming best response is skipped.
    leduc = pyspiel.load_game("leduc_poker")
    run = bluff.solve_rules(
        leduc.new_initial_state(), iterations=200, seed=1, evaluate=False, native=False
    )
    assert run.exploitability is None and run.stats["infosets"][0] > 10
    with pytest.raises(ValueError, match="sampling solvers"):
        bluff.solve_rules(game.new_initial_state(), algo="cfr+", iterations=10)


def test_a_built_in_game_plays_on_its_native_rules_from_python(tmp_path):
    """bluff.solve_rules with a spec string plays the built-in rules (as `bluff solve --rules`):
    the same seed and thread count sample as the arena does, so the exploitability (streaming
    best response) and the policy (labelled through the rules' key_state) equal the arena run's;
    a checkpointed run resumed equals a straight one; a game too big for the arena runs."""
    game = bluff.game("leduc")
    arena = bluff.solve(game, algo="os-mccfr", iterations=3000, seed=3, threads=2)
    ruled = bluff.solve_rules("leduc", algo="os-mccfr", iterations=3000, seed=3, threads=2)
    assert ruled.iterations == arena.iterations == 3008  # whole rounds of 2 x 32
    assert ruled.stats["threads"] == 2
    assert abs(ruled.exploitability - arena.exploitability) < 1e-12
    by_label = arena.policy.to_dict()
    reached = 0
    for p in range(2):
        for label, probs in ruled.policy[p].items():
            assert probs == [float(x) for x in by_label[p][label].values()], label
            reached += 1
    assert reached == sum(ruled.stats["infosets"])
    ckpt = tmp_path / "leduc.mcc"
    first = bluff.solve_rules("leduc", iterations=1000, seed=4, checkpoint=ckpt)
    assert first.iterations == 1000 and ckpt.stat().st_size > 0
    resumed = bluff.solve_rules("leduc", iterations=2500, resume=ckpt)
    straight = bluff.solve_rules("leduc", iterations=2500, seed=4)
    assert resumed.iterations == 2500
    assert resumed.exploitability == straight.exploitability
    assert resumed.policy == straight.policy
    big = bluff.solve_rules("liars-dice(dice=2,sides=5)", iterations=64, evaluate=False)
    assert big.exploitability is None
    assert tuple(len(big.policy[p]) for p in range(2)) == big.stats["infosets"]
    with pytest.raises(ValueError, match="states no rules"):
        bluff.solve_rules("one-card-poker", iterations=10)
    with pytest.raises(ValueError, match="spec string"):
        bluff.solve_rules(_KuhnState(), iterations=10, threads=2)


def test_sampling_options_reach_both_engines():
    """epsilon= and baseline= (as bluff solve --epsilon --baseline) reach the arena's solver and
    the native rules' alike: the same seed gives the same exploitability on both engines, and
    the options change the run."""
    game = bluff.game("leduc")
    for algo, options in [
        ("os-mccfr", {"epsilon": 0.4, "baseline": 0.5}),
        ("es-mccfr", {"baseline": 0.25}),
    ]:
        arena = bluff.solve(game, algo=algo, iterations=2000, seed=7, **options)
        rules = bluff.solve_rules("leduc", algo=algo, iterations=2000, seed=7, **options)
        plain = bluff.solve(game, algo=algo, iterations=2000, seed=7)
        assert abs(arena.exploitability - rules.exploitability) < 1e-12, algo
        assert arena.exploitability != plain.exploitability, algo
    with pytest.raises(ValueError, match="epsilon= does not apply to es-mccfr; it applies to os"):
        bluff.solve(game, algo="es-mccfr", iterations=10, epsilon=0.5)
    with pytest.raises(ValueError, match="applies to the sampling solvers"):
        bluff.solve(game, algo="cfr+", iterations=10, baseline=0.5)


def test_a_pyspiel_game_bluff_states_natively_plays_its_native_rules():
    """The initial state of a pyspiel game that bluff states natively plays bluff's rules
    (threads allowed), labelled with OpenSpiel's strings: the same figures and the same policy,
    key for key, as the same game played through pyspiel's states (native=False)."""
    import pyspiel

    for name in ["leduc_poker", "liars_dice(numdice=1,dice_sides=3)"]:
        root = pyspiel.load_game(name).new_initial_state()
        native = bluff.solve_rules(root, iterations=400, seed=2)
        through = bluff.solve_rules(root, iterations=400, seed=2, native=False)
        assert abs(native.exploitability - through.exploitability) < 1e-12, name
        assert native.policy[0].keys() == through.policy[0].keys(), name
        for p in range(2):
            for label, probs in through.policy[p].items():
                assert native.policy[p][label] == pytest.approx(probs, abs=1e-12)
        threaded = bluff.solve_rules(root, iterations=400, seed=2, threads=2)
        assert threaded.stats["threads"] == 2
    with pytest.raises(ValueError, match="native=True"):
        bluff.solve_rules(_KuhnState(), iterations=10, native=True)


def test_an_exception_in_the_python_rules_is_raised():
    class Broken(_KuhnState):
        def child(self, action):
            raise RuntimeError("no moves today")

    with pytest.raises(RuntimeError, match="no moves today"):
        bluff.solve_rules(Broken(), iterations=10)


def test_a_game_in_python_resumes_from_its_checkpoint(tmp_path):
    """A game stated in Python numbers its information sets as first met; its checkpoint keeps
    their names in that order (format version 2), so a resumed run numbers every set as the
    first run did and ends with a straight run's bits: on Kuhn (chance first) and on a Kuhn
    deal fixed in advance (a player moves first, so the root's set is met before the
    checkpoint's names are restored)."""
    for make in (_KuhnState, lambda: _KuhnState((2, 0))):
        ckpt = tmp_path / "python-game.mcc"
        for algo in ("es-mccfr", "os-mccfr"):
            first = bluff.solve_rules(make(), algo=algo, iterations=1000, seed=4, checkpoint=ckpt)
            assert first.iterations == 1000 and ckpt.stat().st_size > 0
            resumed = bluff.solve_rules(make(), algo=algo, iterations=2500, resume=ckpt)
            straight = bluff.solve_rules(make(), algo=algo, iterations=2500, seed=4)
            assert resumed.iterations == 2500
            assert resumed.exploitability == straight.exploitability
            assert resumed.policy == straight.policy
    # A checkpoint of another game (by name) is refused.
    with pytest.raises(ValueError, match="checkpoint"):
        bluff.solve_rules(_KuhnState(), iterations=2500, resume=ckpt, name="other")


def test_a_general_sum_evaluation_gives_each_players_gain(cli, tmp_path):
    """Raked Kuhn: the LCP's equilibrium gives neither player a gain (its exact certificate),
    and a CFR run's gains are `bluff eval --json`'s on the same strategy file."""
    game = bluff.game("kuhn(rake=0.05)")
    eq = bluff.evaluate(game, bluff.solve(game, algo="lcp").policy, exact=True)
    assert eq.general_sum and eq.exact
    assert (eq.gain_p1, eq.gain_p2, eq.nash_conv) == (0, 0, 0)
    path = tmp_path / "cfr.json"
    bluff.solve(game, algo="cfr+", iterations=30).policy.write_json(path)
    out = subprocess.run(
        [cli, "eval", "kuhn(rake=0.05)", path, "--json"], capture_output=True, check=True
    )
    c = json.loads(out.stdout)
    e = bluff.evaluate(game, bluff.Policy.read_json(game, path), exact=True)
    assert e.gain_p1 == Fraction(c["gain_p1"]["exact"])
    assert e.gain_p2 == Fraction(c["gain_p2"]["exact"])
    assert e.nash_conv == Fraction(c["nash_conv"]["exact"]) == e.gain_p1 + e.gain_p2 > 0
    f = bluff.evaluate(game, bluff.Policy.read_json(game, path))
    assert abs(f.gain_p1 - float(e.gain_p1)) < 1e-12 and not isinstance(f.gain_p1, Fraction)
    assert not bluff.evaluate(
        bluff.game("kuhn"), bluff.solve(bluff.game("kuhn"), algo="lp").policy
    ).general_sum
