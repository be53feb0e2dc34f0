"""Shared fixtures: the bluff CLI built from this checkout (for LP comparisons)."""

from __future__ import annotations

import os
import pathlib
import signal
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `bluff` binary: $BLUFF_CLI or target/release/bluff (a failure, not a skip, if absent)."""
    path = pathlib.Path(os.environ.get("BLUFF_CLI", ROOT / "target" / "release" / "bluff"))
    if not path.is_file():
        pytest.fail(f"the bluff CLI is not built at {path}: run `cargo build --release` first")
    return path


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt during the test, whatever the suite's start left: a suite
    started in the background (nohup, a non-interactive shell's `&`) ignores SIGINT, and then
    `_thread.interrupt_main()` does nothing. The previous action is restored after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
