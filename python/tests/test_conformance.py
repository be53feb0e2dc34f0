"""The conformance table (tests/data/conformance.json) through Python: every request is
accepted or refused exactly as the command line's suite finds it (cli/tests/conformance.rs
reads the same file), each option spelled `name=`."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest

import bluff

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "tests" / "data" / "conformance.json").read_text())["requests"]


def spelled(message: str) -> str:
    """Python's spelling of a message: `{name}` is `name=`, `{name:V}` is `name=V`."""

    def one(m: re.Match[str]) -> str:
        name, _, value = m.group(1).partition(":")
        return f"{name}={value}"

    return re.sub(r"\{([^}]*)\}", one, message)


def load(spec: str) -> bluff.Game | bluff.holdem.Spot:
    """A built-in game by its spec, a repository file by its path (a spot by its .toml)."""
    if spec.endswith(".toml"):
        return bluff.holdem.read(str(ROOT / spec))
    if spec.startswith("tests/"):
        return bluff.read_efg(str(ROOT / spec))
    return bluff.game(spec)


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 40


@pytest.mark.parametrize("request_", TABLE, ids=[json.dumps(r["options"]) for r in TABLE])
def test_the_conformance_table_holds_in_python(request_: dict[str, Any]) -> None:
    options = dict(request_["options"])
    # A repository file named in an option, by its absolute path.
    for name, value in options.items():
        if isinstance(value, str) and value.startswith("tests/"):
            options[name] = str(ROOT / value)
    if request_.get("accepted"):
        result = bluff.solve(load(request_["game"]), **options)
        if isinstance(result, bluff.holdem.SpotResult):
            assert len(result.root_ev) == 2
        else:
            assert len(result.values) == 2
        return
    with pytest.raises(Exception) as caught:
        bluff.solve(load(request_["game"]), **options)
    message = str(caught.value)
    if "refused" in request_:
        assert message == spelled(request_["refused"])
    else:
        assert spelled(request_["refused_contains"]) in message
