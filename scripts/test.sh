#!/usr/bin/env bash
# The README's test command: installs what the tests need (idempotent; cached after the first
# run), then runs every test: the Rust suite and the Python package's pytest suite.
#
#   - pygambit 16.7.0 in bench/.venv (Gambit conformance, tests/efg_pygambit.rs): an sdist that
#     compiles Gambit's C++, about 6 minutes cold on 2 cores;
#   - Debian's chromium (report browser test, tests/report_browser.rs), as root or via sudo;
#   - python/.venv with maturin, open_spiel 2.0.2 (a cp311 wheel; pulls jax), numpy, pytest, Ray
#     2.60 (bluff.ray's tests start a local instance and a loopback cluster; about 100 s), and
#     the bluff package built from python/ by maturin.
# Each prerequisite's test is told to fail, not skip, when its prerequisite is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y chromium
fi
export BLUFF_REQUIRE_CHROMIUM=1

scripts/install-pygambit.sh bench/.venv
export BLUFF_PYGAMBIT_PYTHON="$PWD/bench/.venv/bin/python"
export BLUFF_REQUIRE_PYGAMBIT=1

if [ ! -x python/.venv/bin/python ]; then
    python3 -m venv python/.venv
fi
python/.venv/bin/pip install --quiet --disable-pip-version-check maturin "open_spiel==2.0.2" numpy pytest "ray==2.60.*"
python/.venv/bin/pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python

cargo test --release

# pytest exits 5 when it collects no test: any non-zero code fails.
cargo build --release --bin bluff
status=0
# Run from python/tests: from python/ the source folder python/bluff (without the compiled
# extension) would shadow the installed package.
(cd python/tests && BLUFF_CLI="$PWD/../../target/release/bluff" ../.venv/bin/python -m pytest . -q -p no:cacheprovider) || status=$?
if [ "$status" -ne 0 ]; then
    echo "python tests failed (pytest exit code $status)" >&2
    exit "$status"
fi
