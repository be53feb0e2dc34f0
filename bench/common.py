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
