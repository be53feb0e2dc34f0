#!/usr/bin/env bash
# Installs pygambit (Gambit's Python package) into a venv for the conformance test
# tests/efg_pygambit.rs. pygambit ships as an sdist that compiles Gambit's C++: expect tens of
# minutes on a busy 2-core machine (see README). Idempotent: does nothing when the venv already
# imports pygambit.
#
# usage: scripts/install-pygambit.sh [VENV_DIR]      (default: bench/.venv)
# then:  BLUFF_PYGAMBIT_PYTHON=VENV_DIR/bin/python cargo test --release --test efg_pygambit
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-bench/.venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import pygambit" 2>/dev/null; then
    echo "pygambit already installed: $("$venv/bin/python" -c 'import pygambit; print(pygambit.__version__)') in $venv"
    exit 0
fi
start=$(date +%s)
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "pygambit==16.7.0"
echo "installed pygambit $("$venv/bin/python" -c 'import pygambit; print(pygambit.__version__)') in $venv in $(( $(date +%s) - start )) s"
echo "export BLUFF_PYGAMBIT_PYTHON=$venv/bin/python"
