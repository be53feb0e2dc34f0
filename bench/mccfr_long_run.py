"""The long run of issue 28: es-mccfr on liars-dice(dice=2,sides=5) (1.3e9 histories, never
built) for 60 minutes of solving, with exploitability after 10, 30 and 60 minutes measured
exactly by the streaming best response from checkpoints.

usage: python3 bench/mccfr_long_run.py BLUFF [OUT_DIR] [--evaluate-only]

Resumable: each session runs niced until the next milestone of solving time (10, 30, 60
minutes, counted by the solver, measurements and saves excluded), saving the run to
OUT_DIR/run.mcc every 5 minutes; a stopped run is continued by running this script again
(it reads the solving time so far from the checkpoint's header). At each milestone the
checkpoint is copied to OUT_DIR/minNN.mcc. Then each milestone is evaluated (the best
response's time is stated apart) into OUT_DIR/minNN.json, and a table is printed.
Never run in CI: it takes more than an hour and some 8 GB of memory and disk per milestone.
"""

import json
import os
import shutil
import struct
import subprocess
import sys

GAME = "liars-dice(dice=2,sides=5)"
MILESTONES = [10, 30, 60]
THREADS = 2


def header(path):
    """Iterations and solving seconds from a sampling checkpoint's header (BLUFFMCC v1)."""
    with open(path, "rb") as f:
        data = f.read(4096)
    assert data[:8] == b"BLUFFMCC", path
    pos = 12
    for _ in range(3):
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4 + n
    pos += 1 + 8  # sampling, epsilon
    pos += 1 + 8 * 4  # floor, alpha, beta, offset, gamma
    pos += 8 + 1 + 8  # epoch, baseline flag and rate
    seed, threads, iterations, epochs = struct.unpack_from("<QQQQ", data, pos)
    pos += 32
    (seconds,) = struct.unpack_from("<d", data, pos)
    return {"iterations": iterations, "seconds": seconds, "threads": threads, "seed": seed}


def run(cmd, log):
    print("+", " ".join(cmd), flush=True)
    with open(log, "a") as f:
        out = subprocess.run(
            ["nice", "-n", "10", "/usr/bin/time", "-v"] + cmd,
            stdout=subprocess.PIPE,
            stderr=f,
            text=True,
            check=True,
        ).stdout
    return json.loads(out)


def solve(bluff, out):
    ckpt = os.path.join(out, "run.mcc")
    for m in MILESTONES:
        done = os.path.join(out, f"min{m:02d}.mcc")
        if os.path.exists(done):
            continue
        have = header(ckpt)["seconds"] if os.path.exists(ckpt) else 0.0
        left = m * 60 - have
        if left > 1:
            cmd = [
                bluff,
                "solve",
                GAME,
                "--algo",
                "es-mccfr",
                "--seed",
                "0",
                "--threads",
                str(THREADS),
                "--time",
                f"{left:.3f}",
                "--no-eval",
                "--checkpoint",
                ckpt,
                "--checkpoint-every",
                "300",
                "--json",
            ]
            if os.path.exists(ckpt):
                cmd += ["--resume", ckpt]
            session = run(cmd, os.path.join(out, "sessions.log"))
            with open(os.path.join(out, f"session{m:02d}.json"), "w") as f:
                json.dump(session, f, indent=1)
        shutil.copyfile(ckpt, done + ".tmp")
        os.replace(done + ".tmp", done)


def evaluate(bluff, out):
    rows = []
    for m in MILESTONES:
        done = os.path.join(out, f"min{m:02d}.mcc")
        result = os.path.join(out, f"min{m:02d}.json")
        if not os.path.exists(done):
            break
        if not os.path.exists(result):
            h = header(done)
            cmd = [bluff, "solve", "--resume", done, "--iterations", str(h["iterations"]), "--json"]
            r = run(cmd, os.path.join(out, "evaluations.log"))
            with open(result, "w") as f:
                json.dump(r, f, indent=1)
        with open(result) as f:
            r = json.load(f)
        rows.append(r)
        print(
            f"{m:>3} min: {r['iterations']:>10} iterations, {r['seconds']:.0f} s solving, "
            f"exploitability {r['exploitability']:.5f} "
            f"(best response {r['best_response_seconds']:.0f} s), "
            f"{sum(r['infosets'])} information sets, {r['bytes_per_infoset']:.0f} bytes each",
            flush=True,
        )
    return rows


def main():
    bluff = sys.argv[1]
    out = (
        sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "bench/out/ld25"
    )
    os.makedirs(out, exist_ok=True)
    if "--evaluate-only" not in sys.argv:
        solve(bluff, out)
    evaluate(bluff, out)


if __name__ == "__main__":
    main()
