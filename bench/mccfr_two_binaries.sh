#!/usr/bin/env bash
# Sampling speed of two bluff binaries side by side in one run (e.g. before and after a
# refactor): ES and OS-MCCFR on Leduc's rules, wall rate (best of 3 runs of 5 s, taken in
# turns) and callgrind instructions per iteration (difference of 40 000 and 20 000 iterations,
# so setup cancels). Prints the ratios new/old.
#
#   bash bench/mccfr_two_binaries.sh OLD_BLUFF NEW_BLUFF
set -euo pipefail
old=$1
new=$2
rate() { # binary algo -> iterations per second
    "$1" solve leduc --algo "$2" --rules --no-eval --seed 1 --time 5 --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["iterations_per_second"])'
}
instructions() { # binary algo iterations -> instructions (callgrind)
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1" solve leduc --algo "$2" --rules \
        --no-eval --seed 1 --iterations "$3" --json >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
    rm -f "$out"
}
for algo in es-mccfr os-mccfr; do
    best_old=0
    best_new=0
    for _ in 1 2 3; do
        r=$(rate "$old" "$algo")
        best_old=$(python3 -c "print(max($best_old, $r))")
        r=$(rate "$new" "$algo")
        best_new=$(python3 -c "print(max($best_new, $r))")
    done
    i_old=$(($(instructions "$old" "$algo" 40000) - $(instructions "$old" "$algo" 20000)))
    i_new=$(($(instructions "$new" "$algo" 40000) - $(instructions "$new" "$algo" 20000)))
    python3 -c "
o, n, io, inew = $best_old, $best_new, $i_old / 20000, $i_new / 20000
print(f'$algo leduc (rules): old {o:,.0f} it/s, new {n:,.0f} it/s, ratio new/old {n / o:.3f}; '
      f'instructions per iteration old {io:,.0f}, new {inew:,.0f}, ratio {inew / io:.4f}')"
done
