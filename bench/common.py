"""Helpers shared by the benchmark scripts: running bluff and peers, timing, peak memory,
callgrind counts and markdown tables.

The scripts run as `python bench/NAME.py`, so `import common` finds this file. The peers'
versions are pinned in `bench/requirements.txt`, which `bench/venv.sh` installs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def run(args: Sequence[str]) -> str:
    """Runs a command to completion and returns its stdout; a failure raises."""
    return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout


def run_json(args: Sequence[str]) -> Any:
    """Runs a command that prints one JSON document and returns it parsed."""
    return json.loads(run(args))


def timed(f: Callable[[], T]) -> tuple[float, T]:
    """Wall-clock seconds of `f()` (a monotonic clock) and its result."""
    start = time.perf_counter()
    result = f()
    return time.perf_counter() - start, result


def with_peak_rss(args: Sequence[str]) -> tuple[str, int]:
    """Runs a command under GNU time; returns its stdout and its peak RSS in bytes.

    A process forked from Python directly would inherit Python's resident size in its peak, so
    GNU time starts it. A failure raises.
    """
    with tempfile.NamedTemporaryFile("r") as rss:
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit status {p.returncode}")
        peak_kb = int(rss.read().split()[-1])
    return p.stdout, peak_kb * 1024


def callgrind(args: Sequence[str], toggle: str | None = None) -> int:
    """Instructions a command executes under callgrind (only inside `toggle` if given)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        extra = [f"--toggle-collect={toggle}"] if toggle else []
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *extra, *args],
            check=True,
            capture_output=True,
        )
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind total")


def slug(spec: str) -> str:
    """A game spec as a file name: `liars-dice(dice=1,sides=6)` -> `liars_dice_dice_1_sides_6`."""
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table (header, separator, rows; cells as `str()`), without a final newline."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def bluff_solve(binary: str, spec: str, *args: str) -> Any:
    """`bluff solve SPEC ARGS --json`, parsed; a failure raises."""
    return run_json([binary, "solve", spec, *args, "--json"])


def load_jsonl(path: str) -> list[dict]:
    """The rows of a resumable results file (one JSON object a line); a torn last line, from
    a killed run, is ignored."""
    rows: list[dict] = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return rows


def append_jsonl(path: str, row: dict) -> None:
    """Appends one row to a resumable results file, flushed and synced before returning."""
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


# Exact solvers against pygambit's (bench/lp_vs_gambit.py, bench/lcp_vs_gambit.py).

DID_NOT_FINISH = "did not finish"

GAMBIT_CHILD = r"""
import sys, time, json
import pygambit as gbt
path, rational, solver = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
t0 = time.perf_counter()
g = gbt.read_efg(path) if hasattr(gbt, "read_efg") else gbt.Game.read_game(path)
t1 = time.perf_counter()
res = getattr(gbt.nash, solver)(g, rational=rational, use_strategic=False)
t2 = time.perf_counter()
eq = res.equilibria[0]
values = [str(eq.payoff(p)) for p in g.players]
print(json.dumps({"read": t1 - t0, "solve": t2 - t1, "values": values}))
"""


def run_capped(
    cmd: Sequence[str], cap: float | None = None
) -> tuple[str | None, float, str | None]:
    """Runs `cmd`, stopped after `cap` seconds: its stdout, seconds and error (`None`;
    `DID_NOT_FINISH` past the cap; else the last line of its stderr)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, DID_NOT_FINISH
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, (p.stderr.strip().splitlines() or ["failed"])[-1]
    return p.stdout, dt, None


def export_efg(bluff: str, spec: str, out_dir: str) -> tuple[str, str | None]:
    """`bluff export SPEC -o OUT_DIR/<slug>.efg`: the file's path and the error, if any."""
    efg = os.path.join(out_dir, slug(spec) + ".efg")
    _, _, err = run_capped([bluff, "export", spec, "-o", efg])
    return efg, err


def gambit_solve(efg: str, solver: str, rational: bool, cap: float) -> tuple[Any, str | None]:
    """pygambit's `nash.SOLVER(game, rational=RATIONAL, use_strategic=False)` on the .efg, in
    its own process stopped after `cap` seconds: `{"read", "solve", "values"}` (seconds to
    read the file and to solve it, the first equilibrium's payoffs as exact strings) or the
    error."""
    cmd = [sys.executable, "-c", GAMBIT_CHILD, efg, "1" if rational else "0", solver]
    out, _, err = run_capped(cmd, cap)
    return (json.loads(out) if out is not None else None), err


def seconds_text(t: float, ms_decimals: int) -> str:
    """`t` seconds as milliseconds below 1 s (`ms_decimals` decimals), else seconds."""
    return f"{t * 1000:.{ms_decimals}f} ms" if t < 1 else f"{t:.2f} s"


def timing_cell(row: dict, key: str, ms_decimals: int, unfinished: str) -> str:
    """A table cell: `row[KEY_s]` seconds, `unfinished` for a run past its cap, else the error
    in `row[KEY]` (or "-")."""
    if key + "_s" in row:
        return seconds_text(row[key + "_s"], ms_decimals)
    if row.get(key) == DID_NOT_FINISH:
        return unfinished
    return row.get(key, "-")


def ratio_cell(row: dict, key: str, cap: float) -> str:
    """A table cell: `row[KEY_s]` over `row["bluff_s"]`, a lower bound from the cap for a run
    past it, else "-"."""
    if "bluff_s" not in row:
        return "-"
    if key + "_s" in row:
        return f"{row[key + '_s'] / row['bluff_s']:.0f}x"
    if row.get(key) == DID_NOT_FINISH:
        return f"> {cap / row['bluff_s']:.0f}x"
    return "-"
