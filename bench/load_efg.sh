#!/usr/bin/env bash
# Loading big .efg files: MB/s and peak RSS per node, for one or more builds side by side.
#
# Usage: bench/load_efg.sh [LABEL=LOAD_EFG_BINARY ...]
#   With no argument it builds and measures this checkout's `examples/load_efg`. To compare
#   with an older build, give each binary a label, e.g.
#     bench/load_efg.sh before=/tmp/load_efg_7033339 after=target/release/examples/load_efg
# Files (made once in $BENCH_DIR, default /tmp/bluff-bench): random games of 1e6 and 1e7 nodes
# from bench/gen_random_efg.py, and goofspiel(cards=5) exported by `bluff export`.
# Each file is loaded once per build (the machine may be shared: CPU seconds are printed beside
# wall seconds, and MB/s is given for both). Then `bluff solve FILE --algo cfr+ --iterations 2
# --json` reports the loaded game's and the solver's bytes per node, and its peak RSS minus the
# solver's arrays gives the game's whole footprint while solving.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/bluff-bench}
mkdir -p "$dir"
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
cargo build --release --quiet --example load_efg --bin bluff
builds=("$@")
if [ ${#builds[@]} -eq 0 ]; then
    builds=("this=target/release/examples/load_efg")
fi
for n in 1000000 10000000; do
    [ -s "$dir/rand$n.efg" ] || python3 bench/gen_random_efg.py "$n" > "$dir/rand$n.efg"
done
[ -s "$dir/goofspiel5.efg" ] || target/release/bluff export "goofspiel(cards=5)" -o "$dir/goofspiel5.efg"

printf '| file | MB | nodes | build | wall s | CPU s | MB/s wall | MB/s CPU | peak RSS MB | peak bytes/node | game heap bytes/node |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in rand1000000 goofspiel5 rand10000000; do
    file="$dir/$f.efg"
    for b in "${builds[@]}"; do
        label=${b%%=*}
        bin=${b#*=}
        out=$( { /usr/bin/time -f 'TIME %e %U %S %M' "$bin" "$file"; } 2>&1 )
        # load_efg prints: "N nodes, ... X MB in S s = R MB/s; game heap H bytes/node"
        python3 - "$f" "$label" "$file" <<EOF
import os, re, sys
out = """$out"""
f, label, path = sys.argv[1:]
mb = os.path.getsize(path) / 1e6
nodes = int(re.search(r"(\d+) nodes", out).group(1))
heap = float(re.search(r"game heap (\d+) bytes/node", out).group(1))
wall, user, sys_, rss = re.search(r"TIME (\S+) (\S+) (\S+) (\d+)", out).groups()
wall, cpu, rss = float(wall), float(user) + float(sys_), int(rss) * 1024
print(f"| {f} | {mb:.1f} | {nodes} | {label} | {wall:.2f} | {cpu:.2f} | {mb / wall:.1f} | {mb / cpu:.1f} "
      f"| {rss / 1e6:.0f} | {rss / nodes:.0f} | {heap:.0f} |")
EOF
    done
done

echo
printf '| file | game bytes/node | solver bytes/node | peak RSS MB | (peak RSS - solver) bytes/node |\n'
printf '|---|---|---|---|---|\n'
for f in rand1000000 goofspiel5 rand10000000; do
    file="$dir/$f.efg"
    out=$( { /usr/bin/time -f 'TIME %M' target/release/bluff solve "$file" --algo cfr+ --iterations 2 --json; } 2>&1 )
    python3 - "$f" <<EOF
import json, re, sys
out = """$out"""
rss = int(re.search(r"TIME (\d+)", out).group(1)) * 1024
j = json.loads(out[out.index("{"):out.rindex("}") + 1])
n = j["nodes"]
print(f"| {sys.argv[1]} | {j['game_bytes_per_node']:.0f} | {j['solver_bytes_per_node']:.0f} "
      f"| {rss / 1e6:.0f} | {(rss - j['solver_bytes']) / n:.0f} |")
EOF
done
