#!/usr/bin/env bash
# bluff.solve(spot) from Python against `bluff solve SPOT.toml` on the same spot and options:
# the same engine behind the same door, so the target is the same time (within 5%). Each run
# is a fresh process on either side (the CLI; `python -c` importing bluff), interleaved, and
# both report the solve's own `seconds` (first iteration to the stop, measurements included)
# and the wall time of the solve call (Python: around `bluff.solve`; CLI: the whole process,
# reading the spot included). Median of RUNS runs each (default 5).
# Usage: bench/python_spot_vs_cli.sh [SPOT.toml] [ITERATIONS] [THREADS] [RUNS]
# Needs the package installed in $PYTHON's environment (default python/.venv/bin/python;
# `pip install ./python`) and the CLI at ${CARGO_TARGET_DIR:-target}/release/bluff, both built
# from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
spot=${1:-tests/data/spots/3betpot_turn.toml}
iterations=${2:-200}
threads=${3:-2}
runs=${4:-5}
python=${PYTHON:-python/.venv/bin/python}
python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python")
spot_abs=$(realpath "$spot")
bluff=${CARGO_TARGET_DIR:-target}/release/bluff
mkdir -p bench/out
out=bench/out/python_spot_vs_cli.tsv
: > "$out"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  cli=$("$bluff" solve "$spot" --iterations "$iterations" --threads "$threads" --json)
  end=$(date +%s.%N)
  printf 'cli\t%s\t%s\t%s\n' \
    "$(printf '%s' "$cli" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')" \
    "$(echo "$end - $start" | bc -l)" \
    "$(printf '%s' "$cli" | "$python" -c 'import json,sys; print(json.load(sys.stdin)["exploitability"])')" \
    >> "$out"
  (cd /tmp && "$python" -c '
import sys, time, bluff
spot = bluff.holdem.read(sys.argv[1])
start = time.perf_counter()
r = bluff.solve(spot, iterations=int(sys.argv[2]), threads=int(sys.argv[3]))
wall = time.perf_counter() - start
print(f"python\t{r.seconds}\t{wall}\t{r.exploitability}")
' "$spot_abs" "$iterations" "$threads") >> "$out"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" - "$out" "$spot" "$iterations" "$threads" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
by = {k: [r for r in rows if r[0] == k] for k in ("cli", "python")}
expl = {k: {r[3] for r in v} for k, v in by.items()}
assert expl["cli"] == expl["python"] and len(expl["cli"]) == 1, expl
med = {k: (statistics.median(float(r[1]) for r in v), statistics.median(float(r[2]) for r in v)) for k, v in by.items()}
print(f"{sys.argv[2]}, {sys.argv[3]} iterations, {sys.argv[4]} threads, median of {len(by['cli'])} runs each")
print(f"exploitability (the same on both sides): {expl['cli'].pop()}")
print("| front end | seconds (solve) | wall of the solve call |")
print("|---|---|---|")
for k in ("cli", "python"):
    print(f"| {k} | {med[k][0]:.3f} | {med[k][1]:.3f} |")
print(f"python / cli: {med['python'][0] / med['cli'][0]:.3f} (solve), {med['python'][1] / med['cli'][1]:.3f} (wall)")
PY
