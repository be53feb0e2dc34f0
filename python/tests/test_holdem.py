"""bluff.holdem: hold'em spots from Python.

Values are compared with the CLI's `--json` on the same spot and options (the same engine, so
a consistency check) and with independent facts: the river LP's exact value against CFR's
float value within its exploitability bound, the exact evaluation (the spot played hand
against hand in rationals) against the vector engine's float one, strategies summing to 1 per
hand, hands blocked by the board absent.
"""

from __future__ import annotations

import _thread
import json
import pathlib
import subprocess
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import bluff
from bluff import holdem

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOTS = ROOT / "tests" / "data" / "spots"
RIVER = SPOTS / "river.toml"
TURN = SPOTS / "turn_reduced.toml"
#: The keys of tests/data/spots/river.toml.
RIVER_KEYS = dict(
    board="QsJh2h8d7c",
    oop_range="AA,KK,QQ,AKs,JTs,T9s,65s,22",
    ip_range="KK,QJs,AQo,98s,33,T9s",
    pot=100,
    stack=200,
    river_bet="50%, a",
    river_raise="100%",
)


def run_cli(cli: pathlib.Path, *args: object, status: int = 0) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [str(cli), *map(str, args)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert out.returncode == status, out.stderr
    return out


def cli_json(cli: pathlib.Path, *args: object) -> dict:
    return json.loads(run_cli(cli, *args, "--json").stdout)


@pytest.fixture(scope="module")
def river() -> holdem.Spot:
    return holdem.read(RIVER)


@pytest.fixture(scope="module")
def turn() -> holdem.Spot:
    return holdem.read(TURN)


@pytest.mark.parametrize("path", [RIVER, TURN], ids=["river", "turn"])
def test_solve_equals_the_cli_json(cli, path):
    spot = holdem.read(path)
    r = bluff.solve(spot, algo="dcfr+", iterations=40, check_every=10, threads=1)
    c = cli_json(cli, "solve", path, "--algo", "dcfr+", "--iterations", 40, "--threads", 1)
    assert r.iterations == c["iterations"] == 40
    assert r.exploitability == c["exploitability"]
    assert r.exploitability_pot_pct == c["exploitability_pot_pct"]
    assert list(r.root_ev) == c["root_ev"]
    assert list(r.root_equity) == c["root_equity"]
    assert list(r.best_response) == c["best_response"]
    assert r.pot == c["pot"]
    assert list(r.stats["decision_nodes"]) == c["decision_nodes"]
    assert r.stats["game_nodes"] == c["game_nodes"]
    # Independent: the check-down equities sum to 1, EVs to the unraked pot, and the
    # exploitability is the mean of the two best-response gains.
    assert sum(r.root_equity) == pytest.approx(1.0, abs=1e-12)
    assert sum(r.root_ev) == pytest.approx(r.pot, rel=1e-9)
    gains = [b - e for b, e in zip(r.best_response, r.root_ev)]
    assert min(gains) >= -1e-9
    assert r.exploitability == pytest.approx(sum(gains) / 2, rel=1e-9, abs=1e-12)


def test_keywords_read_by_the_same_reader_as_the_file(river):
    spot = holdem.Spot(**RIVER_KEYS)
    assert spot.board == "QsJh2h8d7c" and spot.pot == 100 and spot.stack == 200
    a = bluff.solve(spot, iterations=20, threads=1)
    b = bluff.solve(river, iterations=20, threads=1)
    assert (a.exploitability, a.root_ev) == (b.exploitability, b.root_ev)


def test_nodes_are_arrays_over_hands_and_equal_the_cli_export(cli, turn, tmp_path):
    r = bluff.solve(turn, iterations=30, threads=1)
    path = tmp_path / "turn.bin"
    assert r.write_strategy(path) == path.stat().st_size
    strategy = holdem.read_strategy(turn, path)
    assert (strategy.algo, strategy.iterations) == (r.algo, 30)
    paths = strategy.paths()
    # Every deal of the public tree's decision nodes, isomorphic deals once.
    assert paths[0] == "turn" and len(paths) > sum(r.stats["decision_nodes"])
    assert len(set(paths)) == len(paths)
    river_nodes = [p for p in paths if ";river:" in p]
    assert river_nodes
    for p in ["turn", "turn:check", "turn:bet10", river_nodes[0], river_nodes[-1]]:
        node = r.node(p)
        c = cli_json(cli, "export-strategy", TURN, path, "--node", p)
        assert node.path == c["node"] and node.player == c["player"]
        assert node.actions == c["actions"]
        assert node.hands == [h["hand"] for h in c["hands"]]
        want = np.array([[h["strategy"][a] for a in c["actions"]] for h in c["hands"]])
        assert node.strategy.shape == (len(node.hands), len(node.actions))
        # In memory in f64; the file stores f32.
        np.testing.assert_allclose(node.strategy, want, atol=1e-6)
        np.testing.assert_array_equal(node.weights, [h["weight"] for h in c["hands"]])
        np.testing.assert_allclose(node.reach, [h["reach"] for h in c["hands"]], atol=1e-6)
        # Read back from the file: the file's numbers.
        read = strategy.node(p)
        np.testing.assert_allclose(read.strategy, want, atol=1e-7)
        np.testing.assert_allclose(read.reach, [h["reach"] for h in c["hands"]], atol=1e-6)
        # Independent: each hand's probabilities form a distribution.
        np.testing.assert_allclose(node.strategy.sum(axis=1), 1.0, atol=1e-9)
        assert np.all(node.strategy >= 0)
        freq = node.frequencies
        assert freq.shape == (len(node.actions),)
        if node.reach.sum() > 0:
            assert freq.sum() == pytest.approx(1.0)
            np.testing.assert_allclose(freq, node.reach @ node.strategy / node.reach.sum())
    # A hand holding the card dealt on the river does not reach the river node.
    node = r.node(river_nodes[0])
    dealt = river_nodes[0].split(";river:")[1].split(":")[0]
    for hand, reach in zip(node.hands, node.reach):
        if dealt in (hand[:2], hand[2:]):
            assert reach == 0.0


def test_hands_blocked_by_the_board_are_absent(river):
    r = bluff.solve(river, iterations=10, threads=1)
    node = r.node("river")
    assert node.player == "oop" and node.actions == ["check", "bet50", "allin"]
    board = {"Qs", "Jh", "2h", "8d", "7c"}
    assert all(h[:2] not in board and h[2:] not in board for h in node.hands)
    # QQ: 6 combos less the 3 with the Qs; AA: all 6.
    assert sum(h[0] == "Q" and h[2] == "Q" for h in node.hands) == 3
    assert sum(h[0] == "A" and h[2] == "A" for h in node.hands) == 6
    assert "QhQd" in node.hands and "QsQh" not in node.hands
    np.testing.assert_array_equal(node.hand("QhQd"), node.strategy[node.hands.index("QhQd")])
    np.testing.assert_array_equal(node.hand("QdQh"), node.hand("QhQd"))
    with pytest.raises(holdem.HandError, match="QsQh"):
        node.hand("QsQh")
    with pytest.raises(holdem.HandError, match="7c2d"):
        node.hand("7c2d")


def test_the_river_lp_is_exact_and_equals_the_cli_and_bounds_cfr(cli, river, tmp_path):
    lp = bluff.solve(river, algo="lp")
    assert lp.exact and lp.exploitability == 0
    assert all(isinstance(v, Fraction) for v in (*lp.root_ev, *lp.root_equity))
    c = cli_json(cli, "solve", RIVER, "--algo", "lp")
    assert [str(v) for v in lp.root_ev] == c["root_ev"]["exact"]
    assert [str(v) for v in lp.root_equity] == c["root_equity"]["exact"]
    assert lp.root_ev[0] + lp.root_ev[1] == lp.pot == 100
    # Independent: CFR's float EV is within its stated bound of the exact value
    # (|EV - v| <= the larger best-response gain <= 2 x exploitability).
    r = bluff.solve(river, iterations=300, threads=1)
    bound = 2 * r.exploitability + 1e-9
    assert abs(r.root_ev[0] - float(lp.root_ev[0])) <= bound
    assert abs(r.root_ev[1] - float(lp.root_ev[1])) <= bound
    assert r.exploitability < 0.05
    # The equilibrium per node: exact rows summing to 1, the hands of CFR's node.
    node = lp.node("river")
    cfr_node = r.node("river")
    assert node.player == "oop" and node.actions == cfr_node.actions
    assert sorted(node.hands) == sorted(cfr_node.hands)
    assert all(sum(row) == 1 for row in node.exact_strategy)
    np.testing.assert_allclose(
        node.strategy, [[float(q) for q in row] for row in node.exact_strategy]
    )
    facing = lp.node("river:check,bet50")
    assert facing.actions == ["fold", "call", "allin"]
    assert all(isinstance(q, Fraction) for row in facing.exact_strategy for q in row)
    np.testing.assert_array_less(-1e-12, facing.reach)
    with pytest.raises(holdem.NodePathError, match="bet1000"):
        lp.node("river:bet1000")

    # The equilibrium written as `bluff solve --algo lp -o` writes it, and read back by the
    # exact evaluator: exploitable by the f32 rounding alone, playing the LP's EVs.
    lp.write_strategy(tmp_path / "lp.bin")
    e = bluff.evaluate(river, str(tmp_path / "lp.bin"), exact=True)
    assert 0 <= e.exploitability < Fraction(1, 10**5)
    for p in range(2):
        assert abs(float(e.root_ev[p]) - float(lp.root_ev[p])) < 1e-5


def test_a_raked_river_through_the_lcp_equals_the_cli_and_evaluates_as_an_equilibrium(
    cli, tmp_path
):
    raked = holdem.Spot(**RIVER_KEYS, rake=0.05, rake_cap=8)
    path = tmp_path / "raked.toml"
    path.write_text(RIVER.read_text() + "rake = 0.05\nrake_cap = 8\n")
    r = bluff.solve(raked, algo="lcp")
    assert r.exact and r.exploitability == 0
    assert r.stats["general_sum"] is True
    c = cli_json(cli, "solve", path, "--algo", "lcp")
    assert [str(v) for v in r.root_ev] == c["root_ev"]["exact"]
    assert [str(v) for v in r.root_equity] == c["root_equity"]["exact"]
    assert r.root_ev[0] + r.root_ev[1] < r.pot
    assert sum(r.root_equity) == 1
    node = r.node("river:check,bet50")
    assert all(sum(row) == 1 for row in node.exact_strategy)
    # Independent of the LCP's certificate: the engine's evaluator finds no gain.
    r.write_strategy(tmp_path / "lcp.bin")
    e = bluff.evaluate(raked, str(tmp_path / "lcp.bin"))
    assert e.exploitability < 1e-4
    for p in range(2):
        assert abs(e.root_ev[p] - float(r.root_ev[p])) < 1e-4


def test_evaluate_equals_the_cli_eval_and_the_exact_route(cli, river, tmp_path):
    r = bluff.solve(river, iterations=50, threads=1)
    path = tmp_path / "river.bin"
    r.write_strategy(path)
    c = cli_json(cli, "eval", RIVER, path, "--exact")
    e = bluff.evaluate(river, str(path), exact=True)
    assert e.exact and isinstance(e.exploitability, Fraction)
    assert str(e.exploitability) == c["exploitability"]["exact"]
    assert [str(v) for v in e.root_ev] == [v["exact"] for v in c["exact"]["root_ev"]]
    assert [str(v) for v in e.best_response_gain] == [
        v["exact"] for v in c["exact"]["best_response_gain"]
    ]
    assert e.float_exploitability == pytest.approx(float(c["exploitability"]["float"]), abs=1e-4)
    # The result in memory evaluates as its file does (its probabilities rounded to f32 as
    # the file stores them).
    mem = bluff.evaluate(river, r, exact=True)
    assert mem.exploitability == e.exploitability
    # Independent routes: the exact evaluation hand against hand agrees with the vector
    # engine's float walk of the same strategy, and the float walk with the solve's own.
    f = bluff.evaluate(river, r)
    assert not f.exact and f.exploitability == r.exploitability
    assert float(e.exploitability) == pytest.approx(r.exploitability, abs=1e-4)
    assert e.exploitability > 0


def test_bad_spots_raise_the_readers_messages(cli, tmp_path):
    cases = [
        (dict(RIVER_KEYS, colour="red"), "colour"),
        (dict(RIVER_KEYS, oop_range="AA,ZZ"), "ZZ"),
        (dict(RIVER_KEYS, oop_range="AA:1.5"), "1.5"),
        (dict(RIVER_KEYS, board="QsQsJh2h8d"), "Qs"),
        (dict(RIVER_KEYS, pot=-5), "pot"),
        (dict(RIVER_KEYS, flop_bet="50%"), "flop_bet"),
        (dict(RIVER_KEYS, river_bet=5), "river_bet"),
    ]
    for keys, named in cases:
        with pytest.raises(holdem.SpotError, match=named) as info:
            holdem.Spot(**keys)
        # The CLI reads the same keys from a file and says the same.
        toml = tmp_path / "bad.toml"
        toml.write_text(holdem_toml(keys))
        out = run_cli(cli, "solve", toml, "--iterations", 1, status=1)
        assert str(info.value) in out.stderr
        with pytest.raises(holdem.SpotError, match=named):
            holdem.read(toml)
    with pytest.raises(holdem.SpotError, match="pot"):
        holdem.Spot(**dict(RIVER_KEYS, pot={"wrong": 1}))
    with pytest.raises(FileNotFoundError):
        holdem.read(tmp_path / "missing.toml")


def holdem_toml(keys: dict) -> str:
    def value(v: object) -> str:
        return json.dumps(v) if isinstance(v, str) else str(v)

    return "".join(f"{k} = {value(v)}\n" for k, v in keys.items())


def test_bad_requests_and_paths_raise_typed_errors(river, turn, tmp_path):
    r = bluff.solve(river, iterations=10, threads=1)
    for path in ["river:bet1000", "turn:check", "river:check,check,check", "nonsense"]:
        with pytest.raises(holdem.NodePathError, match=path.split(":")[0]):
            r.node(path)
    with pytest.raises(holdem.NodePathError, match="not a decision node"):
        r.node("river:check,check")
    with pytest.raises(ValueError, match="seed="):
        bluff.solve(river, iterations=10, seed=1)
    with pytest.raises(ValueError, match="stop rule"):
        bluff.solve(river)
    with pytest.raises(ValueError, match="target_pot_pct="):
        bluff.solve(bluff.game("kuhn"), target_pot_pct=1.0)
    # A strategy file for another spot is refused, naming the difference.
    path = tmp_path / "river.bin"
    r.write_strategy(path)
    with pytest.raises(holdem.StrategyFileError, match="another spot"):
        holdem.read_strategy(turn, path)
    with pytest.raises(holdem.StrategyFileError, match="another spot"):
        bluff.evaluate(turn, path)
    with pytest.raises(holdem.StrategyFileError, match="another spot"):
        bluff.evaluate(turn, r)
    # Not a strategy file; a truncated one.
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a strategy file at all")
    with pytest.raises(holdem.StrategyFileError, match="BLUFFSPT"):
        holdem.read_strategy(river, junk)
    cut = tmp_path / "cut.bin"
    cut.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(holdem.StrategyFileError):
        holdem.read_strategy(river, cut)
    # Nothing is written on error.
    with pytest.raises(OSError):
        r.write_strategy(tmp_path / "no" / "such" / "dir.bin")
    assert not (tmp_path / "no").exists()


@pytest.mark.usefixtures("ctrl_c_raises")
def test_keyboard_interrupt_stops_a_spot_solve(turn):
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        bluff.solve(turn, time=60.0, threads=1)
    assert time.monotonic() - start < 10


def test_the_gil_is_released_while_solving(turn):
    ticks = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    try:
        bluff.solve(turn, time=1.0, threads=1)
    finally:
        stop.set()
        t.join()
    assert len(ticks) > 20


def test_the_stub_names_every_holdem_class():
    stub = (pathlib.Path(bluff.__file__).parent / "_bluff.pyi").read_text()
    assert (pathlib.Path(bluff.__file__).parent / "py.typed").exists()
    for name in holdem.__all__:
        native = "read_spot" if name == "read" else name
        assert f"class {native}" in stub or f"def {native}(" in stub, name
