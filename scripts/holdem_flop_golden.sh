#!/usr/bin/env bash
# The 3betpotFAST flop (tests/data/spots/3betpot_flop.toml) solved to 0.1% of the pot, its
# root EVs checked against PioSOLVER's published figures (OOP 105.11, IP 74.89, +-0.2; issue
# 40) and its root equity against 0.55347 (+-1e-5). With --raked, the same spot with rake 5%
# capped at 30 chips (bench/spots/3betpot_fast_flop_raked.toml): EV OOP 95.57, IP 66.98
# (+-0.2; general-sum, so Pio's and postflop-solver's values, not guaranteed unique).
# With --compress, the state is stored in 16 bits (bluff solve --compress; its own
# checkpoint, bench/out/golden_<name>_compressed.ckpt).
# Too big for CI: the solver's state is 6.2 GB in f64 (256 288 708 entries) and an iteration
# takes seconds. Needs a release build (cargo build --release); BLUFF overrides the binary.
# A checkpoint is saved every 5 minutes under bench/out; running the script again resumes it.
set -euo pipefail
cd "$(dirname "$0")/.."
BLUFF=${BLUFF:-target/release/bluff}
THREADS=${THREADS:-2}
spot=tests/data/spots/3betpot_flop.toml
ev_oop=105.11
ev_ip=74.89
name=flop
storage=()
for arg in "$@"; do
  case "$arg" in
    --raked)
      spot=bench/spots/3betpot_fast_flop_raked.toml
      ev_oop=95.57
      ev_ip=66.98
      name=flop_raked
      ;;
    --compress)
      storage=(--compress)
      ;;
    *)
      echo "usage: $0 [--raked] [--compress]" >&2
      exit 2
      ;;
  esac
done
if [ ${#storage[@]} -gt 0 ]; then
  name=${name}_compressed
fi
mkdir -p bench/out
ckpt=bench/out/golden_$name.ckpt
resume=()
if [ -f "$ckpt" ]; then
  resume=(--resume "$ckpt")
fi
out=$("$BLUFF" solve "$spot" --target-pot-pct 0.1 --threads "$THREADS" \
  --checkpoint "$ckpt" --checkpoint-every 300 "${storage[@]}" "${resume[@]}" --json)
echo "$out"
python3 - "$out" "$ev_oop" "$ev_ip" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
ev_oop, ev_ip = float(sys.argv[2]), float(sys.argv[3])
eq, ev = d["root_equity"], d["root_ev"]
ok = abs(eq[0] - 0.55347) <= 1e-5 and abs(ev[0] - ev_oop) <= 0.2 and abs(ev[1] - ev_ip) <= 0.2
print(f"{d['iterations']} iterations, {d['exploitability_pot_pct']:.4f}% of the pot;",
      f"root equity OOP {eq[0]:.5f}; root EV OOP {ev[0]:.3f} IP {ev[1]:.3f}:",
      "agrees with PioSOLVER" if ok else "DISAGREES with PioSOLVER")
sys.exit(0 if ok else 1)
PY
