"""The Python examples of README.md and docs/*.md run as tests.

A fenced block whose info string is ``python run`` is run with this interpreter in a fresh
temporary directory; when a ``text`` block follows it directly, that is what it prints, line
for line, where ``[..]`` within a line matches any text on that line.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples() -> list[tuple[str, str, list[str] | None]]:
    """(place, code, expected lines or None) of every ``python run`` block."""
    found = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```python run":
                start = i + 1
                end = lines.index("```", start)
                code = "\n".join(lines[start:end]) + "\n"
                expected = None
                if end + 1 < len(lines) and lines[end + 1].strip() == "```text":
                    stop = lines.index("```", end + 2)
                    expected = lines[end + 2 : stop]
                    end = stop
                found.append((f"{page.name}:{i + 1}", code, expected))
                i = end
            i += 1
    return found


def line_matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("[..]"))
    return re.fullmatch(pattern, actual) is not None


def test_there_are_python_examples():
    assert examples(), "no ```python run block in README.md or docs/"


@pytest.mark.parametrize("place,code,expected", examples(), ids=lambda x: str(x)[:40])
def test_python_example_prints_what_it_shows(place, code, expected, tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert out.returncode == 0, f"{place}: {out.stderr}"
    if expected is not None:
        actual = out.stdout.splitlines()
        assert len(actual) == len(expected) and all(
            line_matches(e, a) for e, a in zip(expected, actual)
        ), f"{place}: expected\n" + "\n".join(expected) + "\ngot\n" + out.stdout
